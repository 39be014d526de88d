import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeKrakenOhlc, MAX_ROWS } from '../../test/fakes/kraken-ohlc.js';
import { FeedHealth } from '../shared/health.js';
import { ProviderError } from './http.js';
import { KrakenOhlcClient, parseOhlc } from './kraken-ohlc.js';
import { testDeps } from '../../test/support/providers.js';
import { problemOf } from '../http/problem.js';

const NOW = 1_790_000_130; // 2026-09-21T13:35:30Z
let fake: FakeKrakenOhlc;
let health: FeedHealth;
let client: KrakenOhlcClient;

beforeAll(async () => {
  fake = await FakeKrakenOhlc.start(NOW);
});
afterAll(() => fake.server.close());
beforeEach(() => {
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.now = NOW;
  health = new FeedHealth('ohlc', true);
  client = new KrakenOhlcClient({
    ...testDeps('kraken'),
    baseUrl: fake.url,
    timeoutMs: 300,
    retries: 2,
    initialDelayMs: 5,
    health,
  });
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );

describe('KrakenOhlcClient against a fake Kraken', () => {
  it('reads the canonical pair key, the 720 latest rows and last', async () => {
    const page = await client.ohlc('XBTUSD', 60);
    const forming = Math.floor(NOW / 3600) * 3600;
    expect(page.pairKey).toBe('XXBTZUSD');
    expect(page.rows).toHaveLength(MAX_ROWS);
    expect(page.last).toBe(forming - 3600);
    expect(page.rows.at(-1)?.time).toBe(forming);
    expect(page.rows.at(-2)?.time).toBe(page.last);
    const [time, open, high, low, close, vwap, volume, count] = fake.committed('XBTUSD', 60, page.last);
    expect(page.rows.at(-2)).toEqual({ time, open, high, low, close, vwap, volume, count });
    expect(Object.fromEntries(fake.server.requests[0]!.query)).toEqual({ pair: 'XBTUSD', interval: '60' });
    expect(health.lastSuccessAt).not.toBeNull();
  });

  it('passes since and gets only newer candles plus the forming one', async () => {
    const forming = Math.floor(NOW / 60) * 60;
    const page = await client.ohlc('XBTEUR', 1, { since: forming - 180 });
    expect(page.pairKey).toBe('XXBTZEUR');
    expect(page.rows.map((r) => r.time)).toEqual([forming - 120, forming - 60, forming]);
    expect(fake.server.requests[0]!.query.get('since')).toBe(String(forming - 180));
  });

  it('treats an error in a 200 answer as a failure, transient or not as Kraken says', async () => {
    const unknown = await failure(client.ohlc('XBTJPY', 1));
    expect(unknown).toBeInstanceOf(ProviderError);
    expect(unknown.message).toMatch(/kraken: OHLC XBTJPY: EQuery:Unknown asset pair/);
    expect(unknown.transient).toBe(false);
    expect(health.ok).toBe(false);
    fake.server.failNext({
      kind: 'status',
      status: 200,
      json: { error: ['EService:Unavailable'], result: {} },
    });
    const busy = await failure(client.ohlc('XBTUSD', 1));
    expect(busy.transient).toBe(true);
    expect(problemOf(busy)!.status).toBe(502);
  });

  it.each([
    ['a 5xx', { kind: 'status', status: 502 }],
    ['a 429', { kind: 'rate-limit', retryAfterSeconds: 0 }],
    ['a dropped connection', { kind: 'drop' }],
  ] as const)('retries %s and then answers', async (_name, fault) => {
    fake.server.failNext(fault, 2);
    expect((await client.ohlc('XBTUSD', 1)).rows.length).toBe(MAX_ROWS);
    expect(fake.server.requests).toHaveLength(3);
  });

  it.each([
    ['a lasting 5xx', { kind: 'status', status: 500 }, /HTTP 500/],
    ['malformed JSON', { kind: 'malformed' }, /malformed JSON/],
    ['a timeout', { kind: 'timeout' }, /no answer within 300 ms/],
  ] as const)('fails on %s, naming kraken', async (_name, fault, message) => {
    fake.server.failAlways(fault);
    const e = await failure(client.ohlc('XBTUSD', 1));
    expect(e.message).toMatch(/^kraken: /);
    expect(e.message).toMatch(message);
    expect(health.lastError).toMatch(message);
  });
});

describe('parseOhlc', () => {
  const row = [1701730800, '41970.0', '41984.7', '41793.6', '41984.7', '41877.4', '135.24641260', 1812];
  const ok = { error: [], result: { XXBTZUSD: [row], last: 1701727200 } };

  it('reads a well-formed answer', () => {
    expect(parseOhlc(ok).rows[0]).toEqual({
      time: 1701730800,
      open: '41970.0',
      high: '41984.7',
      low: '41793.6',
      close: '41984.7',
      vwap: '41877.4',
      volume: '135.24641260',
      count: 1812,
    });
  });

  it.each([
    ['no error array', { result: ok.result }],
    ['no last', { error: [], result: { XXBTZUSD: [row] } }],
    ['two pairs', { error: [], result: { XXBTZUSD: [row], XXBTZEUR: [row], last: 1 } }],
    ['a numeric price', { error: [], result: { XXBTZUSD: [[1701730800, 41970, ...row.slice(2)]], last: 1 } }],
    ['a string time', { error: [], result: { XXBTZUSD: [['1701730800', ...row.slice(1)]], last: 1 } }],
    ['a short row', { error: [], result: { XXBTZUSD: [row.slice(0, 5)], last: 1 } }],
    ['descending rows', { error: [], result: { XXBTZUSD: [row, [1701727200, ...row.slice(1)]], last: 1 } }],
  ])('rejects %s', (_name, body) => {
    expect(() => parseOhlc(body)).toThrow(ProviderError);
  });
});
