import { Session } from 'node:inspector/promises';
import { srcFilesRan } from './coverage.js';
import { FakeEnergiDataService, RADIUS_GLN, radiusTariffRecords } from '../test/fakes/energidataservice.js';
import { startTestApp } from '../test/support/app.js';
import { refreshCharges, storeDay } from '../test/support/costs.js';
import { insertEnergy } from '../src/power/metering/repository.js';
import { addDays, danishDaySteps } from '../src/shared/danish-time.js';

/**
 * `npx tsx scripts/bill-journey.ts [--csv]`: the files of src/ whose code runs while one GET
 * /api/bill of a metered and priced month is answered, after a first request has compiled the
 * route (V8's precise coverage of the main thread; on PGlite the statements also run
 * src/db/pglite-worker.mjs on its own thread, which this does not see).
 */
const TOKEN = 'bill-journey-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

const fake = await FakeEnergiDataService.start();
fake.tariffs = radiusTariffRecords();
const app = await startTestApp({
  env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url, API_TOKEN: TOKEN },
  now: '2026-11-04T10:00:00Z',
});
try {
  await refreshCharges(app, fake);
  const rows = [];
  for (let d = '2026-10-01'; d <= '2026-10-31'; d = addDays(d, 1)) {
    await storeDay(app, d, () => '500');
    for (const t of danishDaySteps(d, 60))
      rows.push({
        metering_point_id: '571313100000012345',
        start_at: t,
        quantity_kwh: '0.25',
        quality: 'A04',
      });
  }
  await insertEnergy(app.ctx.database.db, 'power.consumption', rows);
  const url = `/api/bill?month=2026-10${process.argv.includes('--csv') ? '&format=csv' : ''}`;

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const first = await app.call('GET', url, undefined, auth);
  if (first.statusCode !== 200) throw new Error(`GET ${url}: ${first.statusCode} ${first.body}`);
  // Taking the coverage resets its counts: what the next one holds ran for the measured request.
  await session.post('Profiler.takePreciseCoverage');
  const measured = await app.call('GET', url, undefined, auth);
  if (measured.statusCode !== 200) throw new Error(`GET ${url}: ${measured.statusCode}`);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  session.disconnect();

  const ran = srcFilesRan(result);
  for (const f of ran) console.log(f);
  console.log(`${ran.length} files of src/ ran for GET ${url}`);
} finally {
  await app.close();
  await fake.close();
}
