import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeHttpServer } from '../../test/fakes/http.js';
import { FeedHealth } from '../shared/health.js';
import { HttpProvider, ProviderError, parseRetryAfter } from './http.js';
import { testDeps } from '../../test/support/providers.js';
import { problemOf } from '../http/problem.js';

let fake: FakeHttpServer;
let health: FeedHealth;
let provider: HttpProvider;

beforeAll(async () => {
  fake = await FakeHttpServer.start();
  fake.on('GET', '/v1/thing', { json: { ok: true } });
  fake.on('GET', '/v1/missing', { status: 404, json: { message: 'not found' } });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
  health = new FeedHealth('thing', true);
  provider = new HttpProvider({
    ...testDeps('thing'),
    name: 'thing',
    baseUrl: fake.url,
    timeoutMs: 300,
    retries: 3,
    initialDelayMs: 5,
    maxDelayMs: 20,
    health,
  });
});

const err = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ProviderError,
  );

describe('HttpProvider against a fake server', () => {
  it('answers parsed JSON and records a success', async () => {
    expect(await provider.get('/v1/thing', { query: { a: 1, b: undefined } })).toEqual({ ok: true });
    expect(fake.requests[0]?.query.toString()).toBe('a=1');
    expect(health.lastSuccessAt).not.toBeNull();
  });

  it.each([
    ['5xx', { kind: 'status', status: 503 }],
    ['a dropped connection', { kind: 'drop' }],
    ['malformed JSON', { kind: 'malformed' }],
    ['a timeout', { kind: 'timeout' }],
  ] as const)('retries %s and then succeeds', async (_name, fault) => {
    fake.failNext(fault, 2);
    expect(await provider.get('/v1/thing')).toEqual({ ok: true });
    expect(fake.countOf('GET', '/v1/thing')).toBe(3);
  });

  it('refuses an answer whose bytes are not UTF-8, naming the byte, rather than reading U+FFFD into it', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"K'), Buffer.from([0xf8]), Buffer.from('benhavn"}')]);
    fake.on('GET', '/v1/latin1', { bytes: latin1 });
    const e = await err(provider.get('/v1/latin1'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e?.message).toBe(
      'thing: answer of GET /v1/latin1 must be UTF-8: byte 0xF8 at offset 10 begins no UTF-8 sequence',
    );
    expect(health.ok).toBe(false);
  });

  it('gives up after the configured retries with a transient error naming the provider', async () => {
    fake.failAlways({ kind: 'status', status: 502 });
    const e = await err(provider.get('/v1/thing'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e?.message).toMatch(/^thing: HTTP 502/);
    expect(problemOf(e)).toMatchObject({ status: 502, detail: expect.stringContaining('thing provider') });
    expect(fake.countOf('GET', '/v1/thing')).toBe(4);
    expect(health.ok).toBe(false);
    expect(health.lastError).toMatch(/HTTP 502/);
  });

  it('does not retry a client error', async () => {
    const e = await err(provider.get('/v1/missing'));
    expect(e?.status).toBe(404);
    expect(fake.countOf('GET', '/v1/missing')).toBe(1);
  });

  it('waits as long as Retry-After asks before retrying a 429', async () => {
    fake.failNext({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    expect(await provider.get('/v1/thing')).toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('fails at once when Retry-After is longer than it may wait', async () => {
    const p = new HttpProvider({
      ...testDeps('thing'),
      name: 'thing',
      baseUrl: fake.url,
      timeoutMs: 300,
      maxRetryAfterMs: 500,
    });
    fake.failNext({ kind: 'rate-limit', retryAfterSeconds: 300 });
    const e = await err(p.get('/v1/thing'));
    expect(e?.status).toBe(429);
    expect(problemOf(e)!.status).toBe(503);
    expect(fake.countOf('GET', '/v1/thing')).toBe(1);
  });

  it('stops retrying when the caller aborts', async () => {
    fake.failAlways({ kind: 'status', status: 500 });
    const slow = new HttpProvider({
      ...testDeps('thing'),
      name: 'thing',
      baseUrl: fake.url,
      timeoutMs: 300,
      retries: 10,
      initialDelayMs: 200,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const e = await err(slow.get('/v1/thing', { signal: controller.signal }));
    expect(e).toBeTruthy();
    expect(fake.countOf('GET', '/v1/thing')).toBeLessThanOrEqual(2);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('60', 0)).toBe(60_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('2015-10-21T07:28:00Z'))).toBe(10_000);
    expect(parseRetryAfter(null, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});
