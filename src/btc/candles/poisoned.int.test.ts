import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeKrakenOhlc, type OhlcWireRow } from '../../../test/fakes/kraken-ohlc.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { testDeps } from '../../../test/support/providers.js';
import { FeedHealth } from '../../shared/health.js';
import { KrakenOhlcClient } from '../../providers/kraken-ohlc.js';
import { fixedClock } from '../../shared/clock.js';
import { CandleService, KINDS, PAIRS, type CandleKind } from './service.js';

/** Poisoned OHLC answers: a candle dated in the future, a price no market had, the first answer after a start. */
const START = 1_790_000_130; // 2026-09-21T13:35:30Z
const HOUR = 3_600;
const DAY = 86_400;
const USD = PAIRS[0];
const A_2100 = 4_102_444_800; // 2100-01-01T00:00:00Z

let fake: FakeKrakenOhlc;
let db: TestDatabase;
let clock: ReturnType<typeof fixedClock>;
let health: FeedHealth;

/** The candles service after a (re)start: a new client, so nothing is remembered but what is stored. */
function started(): CandleService {
  const client = new KrakenOhlcClient({
    ...testDeps('kraken', { clock }),
    baseUrl: fake.url,
    timeoutMs: 5_000,
    retries: 0,
    health,
  });
  return new CandleService({ db: db.database.db, client, clock });
}

const page = (rows: OhlcWireRow[], last: number) => ({
  kind: 'status' as const,
  status: 200,
  json: { error: [], result: { XXBTZUSD: rows, last } },
});

async function latestTime(kind: CandleKind): Promise<number> {
  const r = await db.database.db
    .selectFrom(KINDS[kind].table)
    .select((eb) => eb.fn.max('time').as('t'))
    .where('pair', '=', USD.pair)
    .executeTakeFirstOrThrow();
  return r.t === null ? 0 : new Date(r.t).getTime() / 1000;
}

beforeAll(async () => {
  fake = await FakeKrakenOhlc.start(START);
  db = await freshDatabase();
});
afterAll(async () => {
  await fake.server.close();
  await db.close();
});
beforeEach(async () => {
  fake.server.heal();
  fake.now = START;
  clock = fixedClock(new Date(START * 1000));
  health = new FeedHealth('ohlc', true, clock);
  for (const k of Object.values(KINDS)) await db.database.db.deleteFrom(k.table).execute();
});

describe('a candle dated after our clock', () => {
  it('is refused and counted, and the hourly poller goes on taking the candles after it', async () => {
    const candles = started();
    await candles.poll('hour', USD);
    const lastClosed = Math.floor(START / HOUR) * HOUR - HOUR;
    expect(await latestTime('hour')).toBe(lastClosed);

    const wrong: OhlcWireRow = [A_2100, '42000.0', '42010.0', '41990.0', '42000.0', '42000.0', '1.5', 10];
    fake.server.failNext(page([fake.committed('XBTUSD', 60, lastClosed), wrong], A_2100));
    await candles.poll('hour', USD);
    expect(await latestTime('hour')).toBe(lastClosed);
    expect(health.rejected).toBe(1);
    expect(health.lastRejected).toMatch(/stamped 2100-01-01T00:00:00\.000Z/);
    expect(health.ok).toBe(false);

    // two hours on, both new closed candles arrive: the poll did not resume from 2100
    fake.now += 2 * HOUR;
    clock.advance(2 * HOUR * 1000);
    await candles.poll('hour', USD);
    expect(await latestTime('hour')).toBe(lastClosed + 2 * HOUR);
    expect(health.ok).toBe(true);
  });

  it('a forming candle up to one interval ahead of our clock is a candle, not a poison', async () => {
    // the provider's clock runs 30 s ahead of ours: its forming minute starts after our now
    fake.now = START + 60;
    await started().poll('minute', USD);
    expect(await latestTime('minute')).toBe(Math.floor((START + 60) / 60) * 60);
    expect(health.rejected).toBe(0);
  });
});

describe('the first answer after a start', () => {
  it('is judged against the last stored close: a 3× close is held, a 301-digit one refused, the next sane one taken', async () => {
    await started().poll('day', USD);
    const lastDay = await latestTime('day');
    const [, , , , close] = fake.committed('XBTUSD', 1440, lastDay);
    const next = lastDay + DAY;
    const day = (time: number, price: string): OhlcWireRow => [
      time,
      price,
      price,
      price,
      price,
      price,
      '3.5',
      40,
    ];

    // a restart: the guard of the new client knows only what is stored
    fake.now += DAY;
    clock.advance(DAY * 1000);
    const candles = started();
    fake.server.failNext(page([day(next, String(Number(close) * 3))], next));
    await candles.poll('day', USD);
    expect(await latestTime('day')).toBe(lastDay);
    expect(health.lastRejected).toMatch(/over 2× away from the last accepted/);
    expect(health.ok).toBe(false);

    fake.server.failNext(page([day(next, `1${'0'.repeat(300)}`)], next));
    await candles.poll('day', USD);
    expect(await latestTime('day')).toBe(lastDay);
    expect(health.lastRejected).toMatch(/outside 1\.\.100000000/);

    fake.server.failNext(page([day(next, close)], next));
    await candles.poll('day', USD);
    expect(await latestTime('day')).toBe(next);
    expect(health.rejected).toBe(2);
    expect(health.ok).toBe(true);
  });
});
