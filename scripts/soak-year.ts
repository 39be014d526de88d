import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { percentile } from '../bench/lib.js';
import { btcService } from '../src/btc/index.js';
import * as candles from '../src/btc/candles/repository.js';
import type { CandleRow } from '../src/btc/candles/repository.js';
import { premiumOf, SPOT_MAX_AGE_MS } from '../src/btc/market/premium.js';
import * as market from '../src/btc/market/repository.js';
import { retentionServiceOf } from '../src/btc/retention/index.js';
import type { RetentionService } from '../src/btc/retention/service.js';
import { loadConfig } from '../src/config.js';
import type { Feature } from '../src/context.js';

import type { Db } from '../src/db/schema.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { danishDate } from '../src/shared/danish-time.js';
import { MemoryRates } from '../test/fakes/market-rates.js';
import { FEEDS_OFF } from '../test/support/process.js';

/**
 * `npm run soak -- --simulate-days 365`: a year of feed writes on an accelerated clock, in one
 * process on an embedded database in a temporary folder. Each simulated quote interval writes
 * a spot row (repository.insertPrice, pruned to the last hour as the spot feed does) and a quote
 * measured against it (spotAt + premiumOf + insertQuote, as QuoteFeed.poll does); each hour the
 * 1-minute candles of both pairs are upserted and the closed hourly ones inserted (as the candle
 * pollers do), each day the daily ones; retention runs once a simulated day, as its cron does.
 * At the checkpoints it prints each table's rows and the database size, and the p50 of
 * /api/exch-minute and /api/quote/latest over loopback HTTP.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const PAIRS = ['BTC/USD', 'BTC/EUR'] as const;
const ENDPOINTS = ['/api/exch-minute', '/api/quote/latest'];
const TABLES = [
  'btc.quotes',
  'btc.quotes_hour',
  'btc.spot_prices',
  'btc.candles_minute',
  'btc.candles_hour',
  'btc.candles_day',
  'btc.quote_fees',
  'btc.idempotency_keys',
] as const;

export interface YearOptions {
  days: number;
  /** Seconds between simulated quote polls (the live poller's is 10). */
  quoteIntervalS: number;
  /** Requests per endpoint for each p50. */
  requests: number;
}

interface Checkpoint {
  day: number;
  rows: Record<string, number>;
  dbMb: number;
  dirMb: number;
  walMb: number;
  p50: Record<string, number>;
  writeS: number;
  retentionMs: number;
}

export async function simulateYear(opts: YearOptions): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'satwatt-year-'));
  const start = new Date('2025-01-01T00:00:00Z');
  const clock = fixedClock(start);
  let retention!: RetentionService;
  const config = loadConfig(
    { ...FEEDS_OFF, DATA_DIR: dataDir, LOG_LEVEL: 'silent', WRITE_RATE_LIMIT: '1000000' },
    dataDir,
  );
  const runtime = await createRuntime(config, {
    clock,
    log: pino({ level: 'silent' }),
    services: {
      power: () => ({ features: [], services: null }),
      btc: (ctx) => {
        // run by this script once a simulated day, not by its job
        retention = retentionServiceOf(ctx, { pauseMs: 0 });
        const made = btcService(ctx, { rates: new MemoryRates(null), only: ['candles', 'market'] });
        // the baseline: a bare route of the same app, measured beside the endpoints
        const bare: Feature = {
          name: 'bare',
          routes: (app) => void app.get('/soak/bare', async () => ({ ok: true })),
        };
        return { ...made, features: [bare, ...made.features] };
      },
    },
  });
  const base = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const db = runtime.ctx.database.db;
  const checkpoints: Checkpoint[] = [];
  const marks = new Set([1, 30, opts.days]);
  const began = performance.now();
  let writeMs = 0;
  let retentionMs = 0;
  let spotInserts = 0;
  let price = 60_000;
  try {
    for (let day = 1; day <= opts.days; day++) {
      const t0 = performance.now();
      const dayStart = start.getTime() + (day - 1) * DAY_MS;
      for (let hour = 0; hour < 24; hour++) {
        const hourStart = dayStart + hour * HOUR_MS;
        // Each simulated hour's statements commit together, only to spare commit time.
        await db.transaction().execute(async (trx) => {
          for (let at = hourStart; at < hourStart + HOUR_MS; at += opts.quoteIntervalS * 1000) {
            price += Math.round((Math.sin(at / 7e6) + Math.cos(at / 3e5)) * 10);
            clock.set(new Date(at));
            spotInserts = await writeSpot(trx, new Date(at), price, spotInserts);
            await writeQuote(trx, new Date(at + 500), price);
          }
          await writeCandles(trx, hourStart, price);
        });
      }
      for (const pair of PAIRS)
        await candles.insertClosedCandles(db, 'btc.candles_day', [candle(pair, dayStart, price)]);
      writeMs += performance.now() - t0;
      // the daily run, at 03:17 of the next day as the cron would
      clock.set(new Date(dayStart + DAY_MS + 3 * HOUR_MS + 17 * 60_000));
      const r0 = performance.now();
      await retention.run();
      retentionMs = performance.now() - r0;
      if (marks.has(day)) {
        checkpoints.push({
          day,
          rows: await rowCounts(db),
          ...(await sizes(db, dataDir)),
          p50: await p50s(
            { bare: `${base}/soak/bare`, ...Object.fromEntries(ENDPOINTS.map((e) => [e, base + e])) },
            opts.requests,
          ),
          writeS: writeMs / 1000,
          retentionMs,
        });
        process.stderr.write(`day ${day} done after ${((performance.now() - began) / 1000).toFixed(0)} s\n`);
      } else if (day % 30 === 0) {
        process.stderr.write(`day ${day} (${((performance.now() - began) / 1000).toFixed(0)} s)\n`);
      }
    }
    report(opts, checkpoints, (performance.now() - began) / 1000);
  } finally {
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function writeSpot(db: Db, at: Date, eur: number, inserts: number): Promise<number> {
  await market.insertPrice(db, {
    at,
    btc_usd: String(eur * 1.08),
    btc_eur: String(eur),
    btc_dkk: null,
    rates: null,
  });
  // the spot feed prunes to the last hour every 500 inserts
  if ((inserts + 1) % 500 === 0) await market.prunePrices(db, new Date(at.getTime() - HOUR_MS));
  return inserts + 1;
}

async function writeQuote(db: Db, at: Date, eur: number): Promise<void> {
  const date = danishDate(at);
  if ((await market.feeOf(db, date, '55')) === undefined)
    await market.saveFee(db, { date, total_eur: '55', fee_eur: '0.55', learned_at: at });
  const broker = eur * 1.01;
  const q = {
    at,
    total_eur: '55',
    fee_eur: '0.55',
    pre_fee_eur: '54.45',
    quote_sats: Math.floor((54.45 / broker) * 1e8),
  };
  const spot = await market.spotAt(db, at, SPOT_MAX_AGE_MS);
  const rates = [
    { amount: broker.toFixed(4), sourceCurrency: 'BTC', targetCurrency: 'EUR' },
    { amount: (broker * 1.08).toFixed(4), sourceCurrency: 'BTC', targetCurrency: 'USD' },
  ];
  await market.insertQuote(db, { ...q, rates, ...premiumOf(q, spot ?? null) });
}

function candle(pair: string, time: number, price: number): CandleRow {
  const p = pair === 'BTC/USD' ? price * 1.08 : price;
  return {
    pair,
    time: new Date(time),
    open: String(p),
    high: String(p + 20),
    low: String(p - 20),
    close: String(p + 5),
    vwap: String(p + 1),
    volume: '1.23456789',
    trades: 42,
  };
}

async function writeCandles(db: Db, hourStart: number, price: number): Promise<void> {
  for (const pair of PAIRS) {
    const minutes = Array.from({ length: 60 }, (_, i) => candle(pair, hourStart + i * 60_000, price));
    await candles.upsertCandles(db, 'btc.candles_minute', minutes);
    await candles.insertClosedCandles(db, 'btc.candles_hour', [candle(pair, hourStart, price)]);
  }
}

async function rowCounts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES)
    out[t] = Number(
      (
        await db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return out;
}

async function sizes(db: Db, dir: string): Promise<{ dbMb: number; dirMb: number; walMb: number }> {
  const { sql } = await import('kysely');
  const r = await sql<{ b: string }>`select pg_database_size(current_database())::text as b`.execute(db);
  const du = (p: string) => Number(execFileSync('du', ['-sk', p]).toString().split('\t')[0]) / 1024;
  return { dbMb: Number(r.rows[0]!.b) / 1048576, dirMb: du(dir), walMb: du(path.join(dir, 'pg', 'pg_wal')) };
}

/**
 * Rounds before the timed ones: at day 1 the process is seconds old, and with fewer (100) its
 * bare route was still being optimized, 0.27 ms against 0.19 ms at day 365.
 */
const WARM_UP = 1000;

/**
 * p50 latency of each URL, the requests interleaved (one of each in turn, the order rotating) so
 * that the machine's load at that moment falls on the endpoints and on their baseline alike.
 */
async function p50s(urls: Record<string, string>, n: number): Promise<Record<string, number>> {
  const entries = Object.entries(urls);
  const lat = new Map<string, number[]>(entries.map(([k]) => [k, []]));
  for (let i = -WARM_UP; i < n; i++)
    for (let k = 0; k < entries.length; k++) {
      const [name, url] = entries[(i + WARM_UP + k) % entries.length]!;
      const t = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      if (i >= 0) lat.get(name)!.push(performance.now() - t);
    }
  return Object.fromEntries(
    [...lat].map(([name, xs]) => [
      name,
      percentile(
        xs.sort((a, b) => a - b),
        50,
      ),
    ]),
  );
}

function report(opts: YearOptions, cps: Checkpoint[], seconds: number) {
  console.log(
    `\nyear simulation: ${opts.days} days, a quote and a spot row every ${opts.quoteIntervalS} s, ` +
      `1-minute candles for 2 pairs, retention daily; ${seconds.toFixed(0)} s\n`,
  );
  console.log(`| | ${cps.map((c) => `day ${c.day}`).join(' | ')} |`);
  console.log(`|---|${cps.map(() => '---:').join('|')}|`);
  for (const t of TABLES) console.log(`| ${t} rows | ${cps.map((c) => c.rows[t]).join(' | ')} |`);
  console.log(`| pg_database_size MB | ${cps.map((c) => c.dbMb.toFixed(1)).join(' | ')} |`);
  console.log(`| data folder MB | ${cps.map((c) => c.dirMb.toFixed(1)).join(' | ')} |`);
  console.log(`| of which pg_wal MB | ${cps.map((c) => c.walMb.toFixed(1)).join(' | ')} |`);
  console.log(`| last retention run ms | ${cps.map((c) => c.retentionMs.toFixed(0)).join(' | ')} |`);
  console.log(`| bare route p50 ms (baseline) | ${cps.map((c) => c.p50.bare!.toFixed(2)).join(' | ')} |`);
  for (const e of ENDPOINTS)
    console.log(
      `| ${e} p50 ms (× bare) | ${cps.map((c) => `${c.p50[e]!.toFixed(2)} (${(c.p50[e]! / c.p50.bare!).toFixed(2)})`).join(' | ')} |`,
    );
  const first = cps[0]!;
  const last = cps.at(-1)!;
  console.log('');
  for (const e of ENDPOINTS) {
    const raw = last.p50[e]! / first.p50[e]!;
    const rel = last.p50[e]! / last.p50.bare! / (first.p50[e]! / first.p50.bare!);
    console.log(
      `${e}: p50 day ${last.day} / day 1 = ${raw.toFixed(2)}; against the bare route of each moment ${rel.toFixed(2)} (target ≤ 1.2)`,
    );
  }
}
