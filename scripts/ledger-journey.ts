import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { srcFilesRan } from './coverage.js';
import { fakeRates } from '../test/fakes/rates.js';
import { startTestApp } from '../test/support/app.js';
import { btc } from '../test/support/services.js';

/**
 * `npx tsx scripts/ledger-journey.ts`: the files of src/ whose code runs while one POST
 * /api/events of a buy (`exchange_to_wallet`) is answered and its buys row written, after a first
 * buy has compiled the route and stored the day's rates (V8's precise coverage of the main
 * thread; on PGlite the statements also run src/db/pglite-worker.mjs on its own thread, which
 * this does not see).
 */
const DRIVERS = ['embedded.ts', 'pglite-thread.ts', 'postgres.ts'].map((f) => path.join('src', 'db', f));
const TOKEN = 'ledger-journey-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const buy = (sats: number) => ({
  type: 'exchange_to_wallet',
  occurred_at: '2026-03-02',
  from_wallet: 1,
  to_wallet: 4,
  sats,
  fee_sats: 0,
  amount: '100.00',
  currency: 'EUR',
});

const app = await startTestApp({
  env: { API_TOKEN: TOKEN },
  now: '2026-03-04T10:00:00Z',
  services: btc({ rates: fakeRates() }),
});
try {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const first = await app.call('POST', '/api/events', buy(1000), auth);
  if (first.statusCode !== 201) throw new Error(`POST /api/events: ${first.statusCode} ${first.body}`);
  // Taking the coverage resets its counts: what the next one holds ran for the measured request.
  await session.post('Profiler.takePreciseCoverage');
  const measured = await app.call('POST', '/api/events', buy(2000), auth);
  if (measured.statusCode !== 201) throw new Error(`POST /api/events: ${measured.statusCode}`);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  session.disconnect();
  const id = measured.json<{ id: number }>().id;
  const buys = (await app.call('GET', '/api/buys', undefined, auth)).json<{
    items: { event_id: number }[];
  }>();
  if (!buys.items.some((b) => b.event_id === id)) throw new Error(`no buys row for event ${id}`);

  const ran = srcFilesRan(result);
  for (const f of ran) console.log(f);
  console.log(`${ran.length} files of src/ ran for POST /api/events (a buy) and its buys row`);
  // The HTTP layer every route crosses and the database driver are not the ledger's journey.
  const common = (f: string) => f.startsWith(`src${path.sep}http${path.sep}`) || DRIVERS.includes(f);
  const own = ran.filter((f) => !common(f));
  console.log(`${own.length} of them outside src/http/ and the database driver: ${own.join(' ')}`);
} finally {
  await app.close();
}
