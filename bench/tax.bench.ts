import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { createRuntime } from '../src/runtime.js';
import { fakeRates } from '../test/fakes/rates.js';
import { btc } from '../test/support/services.js';
import { timed } from './ledger.bench.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const EVENTS = 100_000;
const YEAR = 2025;
const ROUNDS = 7;

/** The same events the answer is made from, read bare: one statement, in the ledger's order. */
const BARE = sql`select id, type, occurred_at, from_wallet, to_wallet, sats, fee_sats, amount, currency
  from btc.events where occurred_at <= ${`${YEAR}-12-31`}::date order by occurred_at, id`;

/**
 * One owner's year on the embedded database in a data folder: 100,000 events over the year, every
 * other one a purchase into the Trezor and every other a move to the Ledger with a fee (a
 * disposal drawing on the oldest lot), each day with its rates and daily candle. GET
 * /api/tax/{year} (after a first call that stores the days' prices) beside one bare SELECT of
 * the same events on the same database, in turns.
 */
export const taxBench: Benchmark = {
  name: 'tax',
  async run(): Promise<BenchRow[]> {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-'));
    const database = await openDatabase({ server: null, dataDir: dir });
    try {
      await migrate(database);
      const db = database.db;
      await sql`insert into btc.events (type, occurred_at, from_wallet, to_wallet, sats, fee_sats, amount, currency)
        select case when i % 2 = 1 then 'exchange_to_wallet' else 'wallet_to_wallet' end,
          ${`${YEAR}-01-01`}::date + (i * 365 / (${EVENTS}::int + 1))::int,
          case when i % 2 = 1 then 1 else 4 end, case when i % 2 = 1 then 4 else 5 end,
          case when i % 2 = 1 then 1000000 else 1000 end, case when i % 2 = 1 then 0 else 200 end,
          case when i % 2 = 1 then round((600 + i % 97)::numeric + (i % 100) / 100.0, 2) end,
          case when i % 2 = 1 then (array['EUR', 'DKK', 'USD'])[1 + i % 3] end
        from generate_series(1, ${EVENTS}) i`.execute(db);
      await sql`insert into btc.ledger_rates (date, rates_date, usd_eur, usd_dkk, eur_dkk)
        select d, d, 0.9 + extract(day from d) / 1000, 6.7 + extract(day from d) / 100, 7.4 + extract(day from d) / 10000
        from generate_series(${`${YEAR}-01-01`}::date, ${`${YEAR}-12-31`}::date, interval '1 day') d`.execute(
        db,
      );
      await sql`insert into btc.candles_day (pair, time, open, high, low, close, vwap, volume, trades)
        select 'BTC/EUR', d, 90000, 90000, 90000, 90000, 90000 + extract(doy from d) * 10.5, 1, 1
        from generate_series(${`${YEAR}-01-01T00:00:00Z`}::timestamptz, ${`${YEAR}-12-31T00:00:00Z`}::timestamptz, interval '1 day') d`.execute(
        db,
      );
      await sql`analyze`.execute(db);
      const runtime = await createRuntime(benchConfig({ SERVICES: 'btc', API_TOKEN: '' }), {
        database,
        log: pino({ level: 'silent' }),
        services: btc({ rates: fakeRates(), only: ['ledger', 'tax'] }),
      });
      try {
        const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
        let disposals = 0;
        const ours = async () => {
          const res = await fetch(`${subject}/api/tax/${YEAR}`);
          if (res.status !== 200) throw new Error(`tax: ${res.status} ${await res.text()}`);
          disposals = (JSON.parse(await res.text()) as { disposals: unknown[] }).disposals.length;
        };
        const bare = () => BARE.execute(db);
        await ours();
        await bare();
        const a: number[] = [];
        const b: number[] = [];
        for (let r = 0; r < ROUNDS; r++)
          for (const which of r % 2 === 0 ? ['a', 'b'] : ['b', 'a'])
            if (which === 'a') a.push(await timed(ours));
            else b.push(await timed(bare));
        const median = (xs: number[]) =>
          percentile(
            [...xs].sort((p, q) => p - q),
            50,
          );
        return [
          row({
            name: `GET /api/tax/${YEAR} on PGlite, one owner`,
            unit: 'ms',
            value: median(a),
            baselineName: 'one bare SELECT of the same events, in order, on the same database',
            baseline: median(b),
            target: 'ratio ≤ 3',
            note: `${EVENTS.toLocaleString('en')} events, ${disposals.toLocaleString('en')} disposals answered with their lots; median of ${ROUNDS}`,
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
