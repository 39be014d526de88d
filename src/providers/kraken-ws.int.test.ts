import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeKraken, kraken } from '../../test/fakes/kraken-ws.js';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { FakeWsServer } from '../../test/fakes/ws.js';
import { FeedHealth } from '../shared/health.js';
import { systemClock } from '../shared/clock.js';
import { CallBudget } from './budget.js';
import { KrakenTickerClient, MalformedMessage, parseKrakenMessage, type KrakenTick } from './kraken-ws.js';
import { testDeps } from '../../test/support/providers.js';

const log = pino({ level: 'silent' });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('parseKrakenMessage', () => {
  it('reads ticker snapshots and updates, heartbeats, status and acks', () => {
    const t = parseKrakenMessage(
      JSON.stringify(kraken.ticker('update', 'BTC/EUR', 65927, { timestamp: '2026-08-22T18:15:11.309506Z' })),
    );
    expect(t).toEqual({
      kind: 'ticker',
      ticks: [
        {
          symbol: 'BTC/EUR',
          last: 65927,
          bid: 65926.9,
          ask: 65927,
          timestamp: new Date('2026-08-22T18:15:11.309Z'),
        },
      ],
    });
    expect(parseKrakenMessage('{"channel":"heartbeat"}')).toEqual({ kind: 'heartbeat' });
    expect(parseKrakenMessage(JSON.stringify(kraken.status('maintenance')))).toEqual({
      kind: 'status',
      system: 'maintenance',
    });
    expect(parseKrakenMessage(JSON.stringify(kraken.ack('BTC/USD', 1)))).toEqual({
      kind: 'subscribed',
      symbol: 'BTC/USD',
    });
    expect(
      parseKrakenMessage('{"method":"subscribe","success":false,"error":"Currency pair not supported"}'),
    ).toEqual({
      kind: 'subscribe-failed',
      error: 'Currency pair not supported',
    });
    expect(parseKrakenMessage('{"channel":"book","type":"snapshot","data":[]}')).toEqual({ kind: 'other' });
  });

  it('rejects frames that are not JSON objects or carry no usable price', () => {
    for (const bad of [
      '{',
      '[1]',
      '42',
      '{"channel":"ticker","type":"update","data":{}}',
      '{"channel":"ticker","type":"update","data":[{"symbol":"BTC/USD","last":"1"}]}',
      '{"channel":"ticker","type":"update","data":[{"symbol":"BTC/USD","last":-5}]}',
      '{"channel":"ticker","type":"update","data":[{"last":5}]}',
    ])
      expect(() => parseKrakenMessage(bad), bad).toThrow(MalformedMessage);
  });
});

describe('KrakenTickerClient', () => {
  function client(url: string, over: Partial<ConstructorParameters<typeof KrakenTickerClient>[0]> = {}) {
    const ticks: KrakenTick[] = [];
    const health = new FeedHealth('spot', true);
    const c = new KrakenTickerClient({
      ...testDeps('kraken-ws'),
      url,
      symbols: ['BTC/USD', 'BTC/EUR'],
      onTick: (t) => ticks.push(t),
      health,
      log,
      watchdogMs: 300,
      initialBackoffMs: 10,
      maxBackoffMs: 50,
      ...over,
    });
    closers.push(() => c.stop());
    return { c, ticks, health };
  }

  it('subscribes once per connection and delivers the snapshot and updates', async () => {
    const fake = await FakeKraken.start({ heartbeatMs: 50 });
    closers.push(() => fake.close());
    const { c, ticks, health } = client(fake.url);
    c.start();
    await waitFor(() => ticks.length >= 2);
    expect(ticks.map((t) => [t.symbol, t.last])).toEqual([
      ['BTC/USD', 65000.5],
      ['BTC/EUR', 60000.1],
    ]);
    fake.tick('BTC/USD', 70000);
    await waitFor(() => ticks.some((t) => t.last === 70000));
    expect(fake.subscribes).toBe(1);
    expect(health.connected).toBe(true);
    expect(health.reconnects).toBe(0);
  });

  it('skips and counts a price over 2× from the last accepted, until a second tick confirms it', async () => {
    const fake = await FakeKraken.start({ heartbeatMs: 50 });
    closers.push(() => fake.close());
    const { c, ticks, health } = client(fake.url);
    c.start();
    await waitFor(() => ticks.length >= 2);
    fake.tick('BTC/USD', 650);
    fake.tick('BTC/USD', 66000);
    await waitFor(() => ticks.some((t) => t.last === 66000));
    expect(ticks.map((t) => t.last)).not.toContain(650);
    expect(health.rejected).toBe(1);
    expect(health.lastRejected).toMatch(/BTC\/USD: 650 is over 2×/);
    fake.tick('BTC/USD', 1000);
    fake.tick('BTC/USD', 1010);
    await waitFor(() => ticks.some((t) => t.last === 1010));
    expect(ticks.map((t) => t.last)).not.toContain(1000);
    expect(health.rejected).toBe(2);
  });

  it('closes a connection whose message is larger than PROVIDER_MAX_BYTES, reports it, and connects again', async () => {
    const fake = await FakeKraken.start({ heartbeatMs: 50 });
    closers.push(() => fake.close());
    const { c, ticks, health } = client(fake.url, { maxBytes: 2_048 });
    c.start();
    await waitFor(() => ticks.length >= 2);
    fake.send({ channel: 'ticker', type: 'update', data: [], padding: 'x'.repeat(4_096) });
    await waitFor(() => health.reconnects >= 1 && fake.ws.connections >= 2);
    expect(health.failures).toBeGreaterThanOrEqual(1);
    expect(health.lastError).toMatch(/max payload|payload size|too big/i);
    await waitFor(() => health.connected === true);
  });

  it('keeps a connection that sends only heartbeats', async () => {
    const fake = await FakeKraken.start({ heartbeatMs: 50 });
    closers.push(() => fake.close());
    const { c, health } = client(fake.url);
    c.start();
    await waitFor(() => health.connected === true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(fake.ws.connections).toBe(1);
    expect(health.reconnects).toBe(0);
  });

  it('never makes more connection attempts per window than allowed, however often it is cut off', async () => {
    const ws = await FakeWsServer.start();
    closers.push(() => ws.close());
    ws.onConnection((s) => s.terminate());
    const { c, health } = client(ws.url, {
      budget: new CallBudget('kraken-ws', { calls: 3, perMs: 1_500, source: 'test' }, systemClock),
    });
    c.start();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(ws.connections).toBe(3);
    await waitFor(() => ws.connections === 4, 2_000, 'the attempt after the window');
    expect(health.connected).toBe(false);
    expect(health.reconnects).toBeGreaterThanOrEqual(3);
  });

  it('grows the wait between attempts exponentially', async () => {
    const ws = await FakeWsServer.start();
    closers.push(() => ws.close());
    const at: number[] = [];
    ws.onConnection((s) => {
      at.push(Date.now());
      s.terminate();
    });
    const { c } = client(ws.url, {
      initialBackoffMs: 40,
      maxBackoffMs: 10_000,
      random: () => 1,
    });
    c.start();
    await waitFor(() => at.length >= 5, 5_000);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // 40, 80, 160, 320 ms (full jitter held at its top)
    for (const [i, g] of gaps.entries()) expect(g).toBeGreaterThanOrEqual(40 * 2 ** i - 5);
  });
});
