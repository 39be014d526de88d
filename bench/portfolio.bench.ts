import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { insertClosedCandles } from '../src/btc/candles/repository.js';
import { insertPrice } from '../src/btc/market/repository.js';
import { parsePostgresUrl } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/connect.js';
import { createRuntime } from '../src/runtime.js';
import { fakeRates } from '../test/fakes/rates.js';
import { generateEvents } from '../test/support/ledger-events.js';
import { ledgerAndPortfolio } from '../test/support/services.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const EVENTS = 1_000_000;
const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://root@127.0.0.1:5432/test';
const ROUNDS = 31;
const AT = '2022-06-30';

/**
 * The figures the endpoint answers (sats bought, transfer fees, cost in EUR, DKK and USD at each
 * buy's rates), written as the plain aggregate: one statement converting every row.
 */
const BARE = `
select
  coalesce(sum(e.sats) filter (where e.type = 'exchange_to_wallet'), 0) as bought_sats,
  coalesce(sum(e.fee_sats) filter (where e.type = 'wallet_to_wallet'), 0) as fee_sats,
  sum(case e.currency when 'EUR' then e.amount when 'DKK' then e.amount / r.eur_dkk else e.amount * r.usd_eur end) as eur,
  sum(case e.currency when 'DKK' then e.amount when 'EUR' then e.amount * r.eur_dkk else e.amount * r.usd_dkk end) as dkk,
  sum(case e.currency when 'USD' then e.amount when 'EUR' then e.amount / r.usd_eur else e.amount / r.usd_dkk end) as usd
from btc.events e
left join btc.ledger_rates r on r.date = e.occurred_at and e.type = 'exchange_to_wallet'
where e.type <> 'bank_to_exchange'`;

/** The same up to a day, with each wallet's balance then (not stored for past days), in one statement. */
const BARE_AT = `
with t as (${BARE} and e.occurred_at <= '${AT}'),
w as (
  select v.wallet, sum(v.delta) as sats
  from btc.events e cross join lateral (values (e.to_wallet, e.sats),
    (case when e.type = 'wallet_to_wallet' then e.from_wallet end, -(e.sats + e.fee_sats))) v (wallet, delta)
  where e.type <> 'bank_to_exchange' and e.occurred_at <= '${AT}' and v.wallet is not null
  group by v.wallet
)
select * from t cross join w`;

/** The least any answer needs: one sum over the buys joined with their rates. */
const MINIMAL = `select sum(e.amount * r.usd_eur) from btc.events e
  join btc.ledger_rates r on r.date = e.occurred_at where e.type = 'exchange_to_wallet'`;

async function withScratchDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `satwatt_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(SERVER);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** p50s of several operations timed in turns (rotating who goes first), after a warm-up turn. */
async function p50s(ops: (() => Promise<unknown>)[], rounds: number): Promise<number[]> {
  const times = ops.map(() => [] as number[]);
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < ops.length; k++) {
      const i = (k + Math.max(r, 0)) % ops.length;
      const t0 = performance.now();
      await ops[i]!();
      if (r >= 0) times[i]!.push(performance.now() - t0);
    }
  }
  return times.map((xs) =>
    percentile(
      xs.sort((a, b) => a - b),
      50,
    ),
  );
}

async function run(url: string): Promise<BenchRow[]> {
  const database: Database = await openDatabase({ server: parsePostgresUrl(url), poolSize: 10 });
  const runtime = await createRuntime(benchConfig({ SERVICES: 'btc' }), {
    database,
    log: pino({ level: 'silent' }),
    services: ledgerAndPortfolio(fakeRates()),
  });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  try {
    const t0 = performance.now();
    await generateEvents(database, EVENTS);
    const generateS = (performance.now() - t0) / 1000;
    const db = database.db;
    await insertPrice(db, {
      at: new Date(),
      btc_eur: '61234.5',
      btc_usd: '66543.2',
      btc_dkk: '456789.12',
      rates: null,
    });
    const close = { open: '1', high: '1', low: '1', vwap: '1', volume: '1', trades: 1 };
    await insertClosedCandles(db, 'btc.candles_day', [
      { pair: 'BTC/EUR', time: new Date(`${AT}T00:00:00Z`), ...close, close: '18000.1' },
      { pair: 'BTC/USD', time: new Date(`${AT}T00:00:00Z`), ...close, close: '19000.2' },
    ]);
    // As autovacuum leaves a table after a bulk load: statistics and the visibility map.
    await pool.query('vacuum analyze');
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const get = async (path: string) => {
      const res = await fetch(`${subject}${path}`);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
    };
    // Two groups, each timed in turns, so a heavy statement of one does not sit between the other's.
    const [now, bare, minimal] = await p50s(
      [() => get('/api/portfolio'), () => pool.query(BARE), () => pool.query(MINIMAL)],
      ROUNDS,
    );
    const [at, bareAt] = await p50s(
      [() => get(`/api/portfolio?at=${AT}`), () => pool.query(BARE_AT)],
      ROUNDS,
    );
    const note = `${EVENTS.toLocaleString('en')} events generated in ${generateS.toFixed(0)} s; p50 of ${ROUNDS} turns`;
    return [
      row({
        name: 'GET /api/portfolio p50',
        unit: 'ms',
        value: now!,
        baselineName: 'bare SQL aggregate of the same figures (per-row conversion)',
        baseline: bare!,
        target: 'ratio ≤ 2',
        note,
      }),
      row({
        name: 'GET /api/portfolio p50',
        unit: 'ms',
        value: now!,
        baselineName: 'bare SQL: one sum over the buys ⋈ rates',
        baseline: minimal!,
        target: 'ratio ≤ 2',
      }),
      row({
        name: `GET /api/portfolio?at=${AT} p50`,
        unit: 'ms',
        value: at!,
        baselineName: 'bare SQL aggregate of the same figures and wallet balances up to that day',
        baseline: bareAt!,
        target: 'ratio ≤ 2',
      }),
    ];
  } finally {
    await runtime.stop();
    await pool.end();
    await database.close();
  }
}

/** GET /api/portfolio over a million generated events on a PostgreSQL server, in a fresh database. */
export const portfolioBench: Benchmark = {
  name: 'portfolio',
  run: () => withScratchDatabase(run),
};
