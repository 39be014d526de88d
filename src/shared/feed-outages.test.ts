import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FakeHttpServer } from '../../test/fakes/http.js';
import { CallBudget } from '../providers/budget.js';
import { HttpProvider, ProviderError } from '../providers/http.js';
import { logFailedRound } from '../providers/errors.js';
import { createLogger } from '../runtime.js';
import { fixedClock } from './clock.js';
import { formatDuration, HealthRegistry, logFeedChanges } from './health.js';

/** A logger whose lines are kept, as the service's own logger writes them. */
async function capturedLogger(format: 'json' | 'pretty' = 'json') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const log = await createLogger('debug', format, stream);
  const records = () =>
    lines.map((l) => JSON.parse(l) as { level: number; msg: string; feed?: string; downMs?: number });
  return { log, lines, records };
}

describe('feed outages in the log', () => {
  it('says once when a feed goes down and once, with how long, when it is back; not once per failure', async () => {
    const { log, records } = await capturedLogger();
    const clock = fixedClock('2026-07-03T10:00:00Z');
    const stopping = new AbortController();
    const feed = new HealthRegistry(clock, logFeedChanges(log, stopping.signal)).feed('ohlc');
    feed.success();
    for (let i = 0; i < 5; i++) {
      feed.failure(new Error('kraken-ohlc: HTTP 503 from GET /0/public/OHLC'));
      clock.advance(30_000);
    }
    feed.success();
    feed.success();
    expect(records().map((r) => [r.level, r.msg])).toEqual([
      [40, 'ohlc feed down: kraken-ohlc: HTTP 503 from GET /0/public/OHLC'],
      [30, 'ohlc feed back after 2 min 30 s'],
    ]);
    expect(records()[1]).toMatchObject({ feed: 'ohlc', downMs: 150_000 });
    // a call cut off by a stop is no outage
    stopping.abort();
    feed.failure(new Error('call cancelled'));
    expect(records()).toHaveLength(2);
  });

  it('logs one warning for a provider that keeps failing through retries, and no stack per retry', async () => {
    const { log, records, lines } = await capturedLogger();
    const clock = fixedClock('2026-07-03T10:00:00Z');
    const health = new HealthRegistry(clock, logFeedChanges(log, new AbortController().signal));
    const server = await FakeHttpServer.start();
    server.on('GET', '/x', { json: { ok: true } }).failAlways({ kind: 'status', status: 503 });
    try {
      const provider = new HttpProvider({
        name: 'eds',
        baseUrl: server.url,
        timeoutMs: 1_000,
        retries: 2,
        initialDelayMs: 1,
        maxDelayMs: 2,
        clock,
        budget: new CallBudget('eds', { calls: 100, perMs: 1_000, source: 'test' }, clock),
        maxBytes: 1_000_000,
        health: health.feed('prices'),
      });
      for (let round = 0; round < 3; round++) {
        const e = await provider.get('/x').catch((err: unknown) => err);
        expect(e).toBeInstanceOf(ProviderError);
        logFailedRound(log, e, 'price feed round failed');
      }
      server.heal();
      clock.advance(65_000);
      await provider.get('/x');
    } finally {
      await server.close();
    }
    const warnings = records().filter((r) => r.level >= 40);
    expect(warnings.map((r) => r.msg)).toEqual([expect.stringMatching(/^prices feed down: eds: HTTP 503/)]);
    expect(records().filter((r) => r.level === 20)).toHaveLength(3);
    expect(records().at(-1)).toMatchObject({ level: 30, msg: 'prices feed back after 1 min 5 s' });
    expect(lines.join('\n')).not.toContain('"stack"');
  });

  it('logs what is not a provider failure as a warning with its stack', async () => {
    const { log, records } = await capturedLogger();
    logFailedRound(log, new Error('relation "power.prices" does not exist'), 'price feed round failed');
    expect(records()[0]).toMatchObject({
      level: 40,
      err: { stack: expect.stringContaining('Error: relation') },
    });
  });

  it('writes lines for people when the format is pretty', async () => {
    const { log, lines } = await capturedLogger('pretty');
    log.warn({ feed: 'spot' }, 'spot feed down: connection refused');
    expect(lines[0]).toMatch(
      /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] WARN: spot feed down: connection refused$/,
    );
    expect(lines[1]).toMatch(/^\s+feed: "spot"$/);
  });

  it('says how long in words a person reads', () => {
    expect([850, 42_000, 60_000, 185_000, 7_800_000, 7_200_000].map(formatDuration)).toEqual([
      '850 ms',
      '42 s',
      '1 min',
      '3 min 5 s',
      '2 h 10 min',
      '2 h',
    ]);
  });
});
