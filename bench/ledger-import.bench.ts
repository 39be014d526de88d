import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { importServiceOf } from '../src/btc/imports/index.js';
import { ledgerServiceOf } from '../src/btc/ledger/index.js';
import { openDatabase, type Database } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { createRuntime } from '../src/runtime.js';
import { dailyHistory, KRAKEN_HEADER, krakenLines } from '../test/fakes/kraken-ledger.js';
import { fakeRates } from '../test/fakes/rates.js';
import { ledgerAndImports } from '../test/support/services.js';
import { benchConfig, row, type Benchmark } from './lib.js';

/** 2,000 days of five lines: a deposit, a buy (two lines), a withdrawal and a staking reward. */
const DAYS = 2_000;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Back to the seeded wallets with no events; the rates stay, so neither side fetches any. */
async function reset(database: Database): Promise<void> {
  await sql`truncate btc.events, btc.deposits, btc.buys, btc.wallet_days, btc.imported_events,
    btc.purchase_lots, btc.lot_allocations restart identity`.execute(database.db);
  await sql`update btc.wallets set balance = 0`.execute(database.db);
}

/**
 * POST /api/imports' work on a Kraken export of 10,000 lines (parse, plan the FIFO costs, write
 * in one transaction) beside creating the same events one by one through the ledger service's
 * own write path (createEvent: a transaction each), on PGlite in a data folder, alternating.
 */
export const ledgerImportBench: Benchmark = {
  name: 'ledger-import',
  async run() {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-import-'));
    const database = await openDatabase({ server: null, dataDir: dir });
    try {
      await migrate(database);
      const rates = fakeRates();
      const runtime = await createRuntime(benchConfig({ SERVICES: 'btc' }), {
        database,
        log: pino({ level: 'silent' }),
        services: ledgerAndImports(rates),
      });
      try {
        const text = [KRAKEN_HEADER, ...krakenLines(dailyHistory(DAYS), 'bench-')].join('\n');
        const lines = text.split('\n').length - 1;
        const imports = importServiceOf(runtime.ctx, rates);
        const ledger = ledgerServiceOf(runtime.ctx, rates);
        const options = { source: 'kraken' as const, exchange: 1, to_wallet: 4 };
        // The first run fetches and stores every day's rates; the dry run gives the events.
        await imports.importLedger(text, options);
        const planned = (await imports.importLedger(text, { ...options, dry_run: true })).events;
        if (planned.length !== 0) throw new Error('a re-import planned events');
        await reset(database);
        const events = (await imports.importLedger(text, { ...options, dry_run: true })).events.map(
          ({ id: _id, reference: _r, line: _l, ...body }) => body,
        );
        const ours: number[] = [];
        const baseline: number[] = [];
        for (const which of ['import', 'service', 'service', 'import']) {
          await reset(database);
          if (which === 'import')
            ours.push(
              await timed(async () => {
                const r = await imports.importLedger(text, options);
                if (r.events.length !== events.length) throw new Error(`imported ${r.events.length} events`);
              }),
            );
          else
            baseline.push(
              await timed(async () => {
                for (const body of events) {
                  await ledger.createEvent(body);
                }
              }),
            );
        }
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        return [
          row({
            name: `import of a ${lines}-line Kraken export on PGlite (${events.length} events, ${DAYS} lots)`,
            unit: 'ms',
            value: mean(ours),
            baselineName: `the same ${events.length} events through the ledger service's createEvent, one by one`,
            baseline: mean(baseline),
            target: 'ratio ≤ 2',
            note: `${Math.round(lines / (mean(ours) / 1000))} lines/s; mean of 2 each`,
          }),
        ];
      } finally {
        await runtime.stop();
      }
    } finally {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
