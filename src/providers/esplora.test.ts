import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEsplora, OUTSIDE, blockTime } from '../../test/fakes/esplora.js';
import { FakeHttpServer } from '../../test/fakes/http.js';
import { testDeps } from '../../test/support/providers.js';
import { FeedHealth } from '../shared/health.js';
import { EsploraClient } from './esplora.js';
import { ProviderError } from './http.js';

const A = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const B = 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g';

let fake: FakeEsplora;
let health: FeedHealth;
beforeAll(async () => {
  fake = await FakeEsplora.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.heal();
  fake.server.requests.length = 0;
  health = new FeedHealth('chain', true);
});

const client = (o: { timeoutMs?: number; url?: string } = {}) =>
  new EsploraClient({
    ...testDeps('esplora'),
    baseUrl: o.url ?? fake.url,
    timeoutMs: o.timeoutMs ?? 2_000,
    health,
    initialDelayMs: 5,
  });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );
/** An answer of 200 with this body, once. */
const answerOnce = (json: unknown) => fake.server.failNext({ kind: 'status', status: 200, json });

describe('the address endpoints, as Esplora serves them', () => {
  it('reads the sums of GET /address/:address under the base path', async () => {
    fake.pay({ to: [{ address: A, value: 70_000 }], block: 823_001 });
    fake.pay({
      from: [{ address: A, value: 70_000 }],
      to: [{ address: OUTSIDE, value: 69_000 }],
      fee: 1_000,
    });
    expect(await client().address(A)).toEqual({
      chain: { txCount: 1, funded: 70_000, spent: 0 },
      mempool: { txCount: 1, funded: 0, spent: 70_000 },
    });
    expect(fake.server.requests.map((r) => r.path)).toEqual([`/api/address/${A}`]);
  });

  it('lists the unconfirmed first, then confirmed pages of 25 through /txs/chain/:last_seen_txid', async () => {
    for (let i = 0; i < 30; i++) fake.pay({ to: [{ address: B, value: 1_000 + i }], block: 823_100 + i });
    const pending = fake.pay({ to: [{ address: B, value: 5 }] });
    const c = client();
    const first = await c.txs(B);
    expect(first).toHaveLength(26);
    expect(first[0]).toMatchObject({ txid: pending, confirmed: false, blockHeight: null, blockTime: null });
    expect(first[1]).toMatchObject({ confirmed: true, blockHeight: 823_129, blockTime: blockTime(823_129) });
    expect(first[1]!.outputs).toEqual([{ address: B, value: 1_029 }]);
    const next = await c.chainTxs(B, first.at(-1)!.txid);
    expect(next.map((t) => t.blockHeight)).toEqual([823_104, 823_103, 823_102, 823_101, 823_100]);
    expect(fake.server.requests.at(-1)!.path).toBe(`/api/address/${B}/txs/chain/${first.at(-1)!.txid}`);
  });

  it('sends the user and password of the URL as basic auth, never in the URL', async () => {
    const u = new URL(fake.url);
    u.username = 'umbrel';
    u.password = 'p@ss word';
    await client({ url: u.toString() }).address(A);
    const req = fake.server.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('umbrel:p@ss word').toString('base64')}`);
  });
});

describe('a provider that fails', () => {
  it('429 with Retry-After: waited, then asked again', async () => {
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    await client().address(A);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.server.requests).toHaveLength(2);
  });

  it('a slow answer past the timeout is given up and asked again', async () => {
    fake.server.failNext({ kind: 'delay', ms: 600 });
    await client({ timeoutMs: 200 }).address(A);
    expect(fake.server.requests).toHaveLength(2);
  });

  it('a body cut off: asked again once; when it stays cut off, a failure that quotes neither body nor address', async () => {
    fake.pay({ to: [{ address: A, value: 1_000 }], block: 823_200 });
    fake.truncateNext(1);
    expect((await client().txs(A)).length).toBeGreaterThan(0);
    fake.truncateNext(10);
    const e = await failure(client().txs(A));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(/malformed JSON from GET \/api\/address\/…\/txs$/);
    expect(e.message).not.toContain(A);
    expect(e.cause).toBeUndefined();
  });

  it('a redirect is not followed: no other server is ever asked about an address', async () => {
    const stranger = await FakeHttpServer.start();
    try {
      fake.server.failAlways({
        kind: 'status',
        status: 302,
        headers: { location: `${stranger.url}/api/address/${A}` },
        text: '',
      });
      const e = await failure(client().address(A));
      expect(stranger.requests).toHaveLength(0);
      expect(e.message).toBe('esplora: HTTP 302 from GET /api/address/… (a redirect, not followed)');
      expect(e.opts.transient).toBe(false);
    } finally {
      await stranger.close();
    }
  });

  it('an error status names the path without the address', async () => {
    fake.server.failAlways({ kind: 'status', status: 500, text: `no such address ${A}` });
    const e = await failure(client().address(A));
    expect(e.message).toBe('esplora: HTTP 500 from GET /api/address/…');
  });
});

describe('answers are untrusted', () => {
  const stats = (over: Record<string, number> = {}) => ({
    tx_count: 1,
    funded_txo_count: 1,
    funded_txo_sum: 1_000,
    spent_txo_count: 0,
    spent_txo_sum: 0,
    ...over,
  });

  it.each([
    [
      'a negative sum',
      { chain_stats: stats({ funded_txo_sum: -5 }) },
      /chain_stats.funded_txo_sum -5 is outside/,
    ],
    [
      'more than 21 million BTC',
      { mempool_stats: stats({ funded_txo_sum: 2.2e15 }) },
      /outside 0..2100000000000000/,
    ],
    [
      'a confirmed balance below zero',
      { chain_stats: stats({ spent_txo_sum: 2_000 }) },
      /spend more sats than they fund/,
    ],
    ['the answer of another address', { address: B }, /another address/],
  ])('%s is refused, counted in /health, and said', async (_what, over, why) => {
    answerOnce({
      address: A,
      chain_stats: stats(),
      mempool_stats: stats({ tx_count: 0, funded_txo_sum: 0 }),
      ...over,
    });
    const e = await failure(client().address(A));
    expect(e.message).toMatch(why);
    expect(health.rejected).toBe(1);
    expect(health.ok).toBe(false);
  });

  it('a wrong shape is refused naming where', async () => {
    answerOnce({ address: A, chain_stats: { ...stats(), funded_txo_sum: '1000' }, mempool_stats: stats() });
    expect((await failure(client().address(A))).message).toMatch(
      /malformed answer: the address answer at \/chain_stats\/funded_txo_sum/,
    );
  });

  it('a transaction stamped in a block hours ahead of our clock, or an amount out of bounds, is refused', async () => {
    const txid = fake.pay({ to: [{ address: A, value: 1_000 }], block: 823_300 });
    const [tx] = fake.chain.txsPage(A).filter((t) => t.txid === txid);
    const late = { ...tx, status: { ...tx!.status, block_time: Math.floor(Date.now() / 1000) + 3 * 3600 } };
    answerOnce([late]);
    expect((await failure(client().txs(A))).message).toMatch(/a block stamped .* after/);
    answerOnce([{ ...tx, vout: [{ ...tx!.vout[0], value: 3e15 }] }]);
    expect((await failure(client().txs(A))).message).toMatch(/amount outside/);
    expect(health.rejected).toBe(2);
  });
});
