import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { ledgerOnly } from '../test/support/services.js';
import { parsePostgresUrl } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/connect.js';
import { createRuntime } from '../src/runtime.js';
import { fakeRates } from '../test/fakes/rates.js';
import { generateEvents } from '../test/support/ledger-events.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';
import * as history from '../src/btc/ledger/history.js';
import * as projections from '../src/btc/ledger/projections.js';
import * as repo from '../src/btc/ledger/repository.js';
import type { EventData } from '../src/btc/ledger/events.js';

const EVENTS = 1_000_000;
const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://root@127.0.0.1:5432/test';

/** The rebuild's work written out bare: one transaction, no locks taken explicitly, no app. */
export const BARE_REBUILD = `
begin;
delete from btc.deposits;
insert into btc.deposits (id, event_id, occurred_at, wallet, currency, amount, amount_eur, amount_dkk, amount_usd)
select e.id, e.id, e.occurred_at, e.wallet, e.currency, e.amount,
  round(case e.currency when 'EUR' then e.amount when 'DKK' then e.amount / r.eur_dkk else e.amount * r.usd_eur end, 2),
  round(case e.currency when 'DKK' then e.amount when 'EUR' then e.amount * r.eur_dkk else e.amount * r.usd_dkk end, 2),
  round(case e.currency when 'USD' then e.amount when 'EUR' then e.amount / r.usd_eur else e.amount / r.usd_dkk end, 2)
from btc.events e join btc.ledger_rates r on r.date = e.occurred_at where e.type = 'bank_to_exchange';
delete from btc.buys;
insert into btc.buys (id, event_id, occurred_at, wallet, sats, fee_sats, amount_eur)
select e.id, e.id, e.occurred_at, e.from_wallet, e.sats, e.fee_sats,
  round(case e.currency when 'EUR' then e.amount when 'DKK' then e.amount / r.eur_dkk else e.amount * r.usd_eur end, 2)
from btc.events e join btc.ledger_rates r on r.date = e.occurred_at where e.type = 'exchange_to_wallet';
commit;`;

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

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Event bodies that always apply: buys onto cold wallets, round-robin over exchanges and dates. */
function buyBody(i: number) {
  return JSON.stringify({
    type: 'exchange_to_wallet',
    occurred_at: `2021-0${(i % 9) + 1}-1${i % 10}`,
    from_wallet: 1 + (i % 3),
    to_wallet: 4 + (i % 4),
    sats: 1000 + (i % 500),
    fee_sats: i % 7,
    amount: (5 + (i % 100) / 4).toFixed(2),
    currency: 'EUR',
  });
}

/**
 * Transfers between the cold wallets, dated inside the generated history: each takes sats out of
 * a wallet that later events depend on, so the write checks that wallet's running balance.
 */
function transferBody(i: number) {
  return JSON.stringify({
    type: 'wallet_to_wallet',
    occurred_at: `2021-0${(i % 9) + 1}-1${i % 10}`,
    from_wallet: 4 + (i % 4),
    to_wallet: 4 + ((i + 1) % 4),
    sats: 1000,
    fee_sats: 10,
  });
}

/**
 * The SQL of one transfer written the way the ledger wrote it before the running-balance check
 * (lock the read tables and both wallets, insert, two balance updates) and the way it writes it
 * now (the same, plus each wallet's day row refreshed and its days from that date checked),
 * alternating, each rolled back so the data stay the same; p50 of each in ms.
 */
async function historyCheckCost(database: Database, n: number): Promise<[number, number]> {
  const plain: number[] = [];
  const checked: number[] = [];
  for (let i = 0; i < n; i++) {
    const e: EventData = {
      type: 'wallet_to_wallet',
      occurred_at: `2021-0${(i % 9) + 1}-1${i % 10}`,
      from_wallet: 4 + (i % 4),
      to_wallet: 4 + ((i + 1) % 4),
      sats: 1000,
      fee_sats: 10,
    };
    const balance = await database.db
      .selectFrom('btc.wallets')
      .select('balance')
      .where('id', '=', e.from_wallet)
      .executeTakeFirstOrThrow();
    for (const check of i % 2 ? [false, true] : [true, false]) {
      const t0 = performance.now();
      await database.db
        .transaction()
        .execute(async (trx) => {
          await projections.lockReadTablesForWrite(trx);
          for (const w of [e.from_wallet, e.to_wallet].sort((a, b) => a - b))
            await repo.lockWallet(trx, w, 'update');
          await repo.insertEvent(trx, e);
          if (check) {
            await history.appendToWalletDays(trx, [
              { wallet: e.from_wallet, day: e.occurred_at, delta: -1010 },
              { wallet: e.to_wallet, day: e.occurred_at, delta: 1000 },
            ]);
            // Only the wallet that loses sats needs its history checked.
            if (
              await history.firstDayBelowZero(
                trx,
                e.from_wallet,
                e.occurred_at,
                Number(balance.balance) - 1010,
              )
            )
              throw new Error('generated history went negative');
          }
          await repo.addToBalance(trx, e.from_wallet, -1010);
          await repo.addToBalance(trx, e.to_wallet, 1000);
          throw new RolledBack();
        })
        .catch((err: unknown) => {
          if (!(err instanceof RolledBack)) throw err;
        });
      (check ? checked : plain).push(performance.now() - t0);
    }
  }
  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((p, q) => p - q),
      50,
    );
  return [p50(checked), p50(plain)];
}

class RolledBack extends Error {}

/** Events per second through `url`, with `clients` posting back to back for `seconds`. */
export async function postRate(
  url: string,
  clients: number,
  seconds: number,
  body: (i: number) => string = buyBody,
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i += clients) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(i),
        });
        await res.arrayBuffer();
        if (res.status === 201) done++;
        else errors++;
      }
    }),
  );
  if (errors > 0) throw new Error(`${errors} event posts failed`);
  return done / seconds;
}

/** Sequential GETs alternating between the two URLs; p50 of each in ms. */
async function latencies(a: string, b: string, n: number): Promise<[number, number]> {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n + 200; i++) {
    for (const [url, into] of i % 2
      ? ([
          [a, xs],
          [b, ys],
        ] as const)
      : ([
          [b, ys],
          [a, xs],
        ] as const)) {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      if (i >= 200) into.push(performance.now() - t0);
    }
  }
  return [
    percentile(
      xs.sort((p, q) => p - q),
      50,
    ),
    percentile(
      ys.sort((p, q) => p - q),
      50,
    ),
  ];
}

async function run(url: string): Promise<BenchRow[]> {
  const database: Database = await openDatabase({ server: parsePostgresUrl(url), poolSize: 20 });
  const config = benchConfig({ SERVICES: 'btc' });
  const runtime = await createRuntime(config, {
    database,
    log: pino({ level: 'silent' }),
    services: ledgerOnly(fakeRates()),
  });
  const bare = Fastify();
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  // An idle connection dropped by the server must not crash the run; the pool replaces it.
  pool.on('error', () => {});
  try {
    const generateMs = await timed(() => generateEvents(database, EVENTS));
    await pool.query('analyze');
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });

    // Rebuild of both tables through the API vs the bare transaction, alternating A B B A.
    const ours: number[] = [];
    const bareRebuild: number[] = [];
    const rebuildBoth = async () => {
      for (const t of ['deposits', 'buys']) {
        const res = await fetch(`${subject}/api/${t}/rebuild`, { method: 'POST' });
        if (res.status !== 200) throw new Error(`rebuild ${t}: ${res.status} ${await res.text()}`);
      }
    };
    for (const order of [
      ['s', 'b'],
      ['b', 's'],
    ])
      for (const which of order) {
        if (which === 's') ours.push(await timed(rebuildBoth));
        else bareRebuild.push(await timed(() => pool.query(BARE_REBUILD)));
      }

    // Event creation: the API vs a bare route that does one INSERT of the same row.
    await pool.query('create table public.bare_events (like btc.events including all)');
    bare.post('/events', async (req, reply) => {
      const b = req.body as Record<string, unknown>;
      await pool.query(
        `insert into public.bare_events (type, occurred_at, from_wallet, to_wallet, sats, fee_sats, amount, currency)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [b.type, b.occurred_at, b.from_wallet, b.to_wallet, b.sats, b.fee_sats, b.amount, b.currency],
      );
      return reply.code(201).send(b);
    });
    const wallets = JSON.stringify((await runtime.app.inject({ url: '/api/wallets' })).json());
    bare.get('/wallets', async (_req, reply) => reply.type('application/json').send(wallets));
    const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
    await postRate(`${subject}/api/events`, 4, 1);
    const seqApi = await postRate(`${subject}/api/events`, 1, 4);
    const seqBare = await postRate(`${baseline}/events`, 1, 4);
    const conBare = await postRate(`${baseline}/events`, 16, 4);
    const conApi = await postRate(`${subject}/api/events`, 16, 4);
    const seqTransfer = await postRate(`${subject}/api/events`, 1, 4, transferBody);
    const conTransfer = await postRate(`${subject}/api/events`, 16, 4, transferBody);

    const [checkedP50, plainP50] = await historyCheckCost(database, 400);
    const [walletsP50, bareP50] = await latencies(`${subject}/api/wallets`, `${baseline}/wallets`, 2000);

    const median = (xs: number[]) =>
      percentile(
        [...xs].sort((p, q) => p - q),
        50,
      );
    const note = `${EVENTS.toLocaleString('en')} events, generated in ${(generateMs / 1000).toFixed(1)} s`;
    return [
      row({
        name: 'ledger rebuild, deposits + buys',
        unit: 'ms',
        value: median(ours),
        baselineName: 'bare DELETE + INSERT … SELECT, one transaction',
        baseline: median(bareRebuild),
        target: 'ratio ≤ 2',
        note,
      }),
      row({
        name: 'POST /api/events, 1 client',
        unit: 'events/s',
        value: seqApi,
        baselineName: 'bare route, one INSERT',
        baseline: seqBare,
      }),
      row({
        name: 'POST /api/events, 16 clients',
        unit: 'events/s',
        value: conApi,
        baselineName: 'bare route, one INSERT',
        baseline: conBare,
      }),
      row({
        name: 'POST /api/events transfer, 1 client',
        unit: 'events/s',
        value: seqTransfer,
        baselineName: 'bare route, one INSERT',
        baseline: seqBare,
      }),
      row({
        name: 'POST /api/events transfer, 16 clients',
        unit: 'events/s',
        value: conTransfer,
        baselineName: 'bare route, one INSERT',
        baseline: conBare,
      }),
      row({
        name: 'transfer write SQL with the running-balance check, p50',
        unit: 'ms',
        value: checkedP50,
        baselineName: 'the same write without it (as before the check)',
        baseline: plainP50,
        target: 'ratio ≤ 2',
      }),
      row({
        name: 'GET /api/wallets p50',
        unit: 'ms',
        value: walletsP50,
        baselineName: 'bare route, same bytes',
        baseline: bareP50,
        target: 'p50 < 5 ms',
      }),
    ];
  } finally {
    await bare.close();
    await runtime.stop();
    await pool.end();
    await database.close();
  }
}

/** The ledger on a PostgreSQL server with a million generated events, in a fresh random database. */
export const ledgerBench: Benchmark = {
  name: 'ledger',
  run: () => withScratchDatabase(run),
};
