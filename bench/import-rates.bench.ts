import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createImportsFeature, importServiceOf } from '../src/btc/imports/index.js';
import { createLedgerFeature } from '../src/btc/ledger/index.js';
import { createRatesService } from '../src/btc/rates/index.js';
import type { Rates } from '../src/btc/rates/service.js';
import { openDatabase, type Database } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { createRuntime } from '../src/runtime.js';
import { startFakeFrankfurter } from '../test/fakes/frankfurter.js';
import { dailyHistory, KRAKEN_HEADER, krakenLines } from '../test/fakes/kraken-ledger.js';
import { btcOnly } from '../test/support/services.js';
import { benchConfig, row, type Benchmark } from './lib.js';

/** About two years of a household's routine: a deposit, a buy, a withdrawal and a staking line a day. */
const DAYS = 700;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Back to the seeded wallets with no events; without `keepRates` the days' rates go too. */
async function reset(database: Database, keepRates: boolean): Promise<void> {
  await sql`truncate btc.events, btc.deposits, btc.buys, btc.wallet_days, btc.imported_events,
    btc.purchase_lots, btc.lot_allocations restart identity`.execute(database.db);
  await sql`update btc.wallets set balance = 0`.execute(database.db);
  if (!keepRates) await sql`truncate btc.ledger_rates, btc.currency_rates`.execute(database.db);
}

/**
 * The first import of a 700-day Kraken export into a ledger with no rates stored: the rates
 * service fetches every day's from the fake Frankfurter (on 127.0.0.1) under the process's real
 * call budget, beside the same import with every rate already stored, on PGlite in a data
 * folder, alternating.
 */
export const importRatesBench: Benchmark = {
  name: 'import-rates',
  async run() {
    const today = new Date().toISOString().slice(0, 10);
    const fake = await startFakeFrankfurter({ latest: today });
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-import-rates-'));
    const database = await openDatabase({ server: null, dataDir: dir });
    try {
      await migrate(database);
      let rates: Rates | null = null;
      const runtime = await createRuntime(benchConfig({ SERVICES: 'btc', RATES_FEED_URL: fake.url }), {
        database,
        log: pino({ level: 'silent' }),
        services: btcOnly((ctx) => {
          rates = createRatesService(ctx);
          return [createLedgerFeature(ctx, { rates }), createImportsFeature(ctx, { rates })];
        }),
      });
      try {
        const text = [KRAKEN_HEADER, ...krakenLines(dailyHistory(DAYS), 'bench-')].join('\n');
        const imports = importServiceOf(runtime.ctx, rates!);
        const options = { source: 'kraken' as const, exchange: 1, to_wallet: 4 };
        const cold: number[] = [];
        const warm: number[] = [];
        const calls: number[] = [];
        let events = 0;
        // The first round only warms up (the JIT, PGlite's caches); it stores the rates the next uses.
        const order = ['warm', 'cold', 'cold', 'warm'];
        for (const which of ['warm-up', ...order, ...order, 'warm', 'cold']) {
          await reset(database, which === 'warm');
          fake.requests.length = 0;
          const ms = await timed(async () => {
            events = (await imports.importLedger(text, options)).events.length;
          });
          if (which === 'warm-up') continue;
          (which === 'cold' ? cold : warm).push(ms);
          if (which === 'cold') calls.push(fake.requests.length);
          else if (fake.requests.length > 0)
            throw new Error('an import with its rates stored called Frankfurter');
        }
        // The median: on a shared machine one round in several is slowed by others' work.
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        return [
          row({
            name: `first import of a ${DAYS}-day Kraken export (${events} events), no rates stored, fake Frankfurter`,
            unit: 'ms',
            value: median(cold),
            baselineName: 'the same import with every day’s rates already stored',
            baseline: median(warm),
            target: 'under the 30 s request deadline',
            note: `${[...new Set(calls)].join(' or ')} Frankfurter calls a cold import; median of 5 each`,
          }),
        ];
      } finally {
        await runtime.stop();
      }
    } finally {
      await database.close();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
