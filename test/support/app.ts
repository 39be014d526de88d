import type { LightMyRequestResponse } from 'fastify';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { soleLeaderships, type Leadership, type LockName } from '../../src/jobs/leadership.js';
import type { MqttOptions } from '../../src/mqtt/index.js';
import { createRuntime, type ContextOptions, type Runtime } from '../../src/runtime.js';
import type { Services } from '../../src/services.js';
import { fixedClock, type Clock } from '../../src/shared/clock.js';
import { freshDatabase, type TestDatabase } from './db.js';
import { FEEDS_OFF } from './process.js';

/** Every feed off unless a test turns it on; providers point nowhere unless a test points them at a fake. */
const QUIET_ENV: Record<string, string> = {
  ...FEEDS_OFF,
  SPOT_FEED_URL: 'ws://127.0.0.1:9',
  OHLC_FEED_URL: 'http://127.0.0.1:9',
  QUOTE_FEED_URL: 'http://127.0.0.1:9',
  RATES_FEED_URL: 'http://127.0.0.1:9',
  PRICE_FEED_URL: 'http://127.0.0.1:9',
  METERING_FEED_URL: 'http://127.0.0.1:9',
  PROVIDER_TIMEOUT_MS: '2000',
  // Tests make many writes in a burst; the limit itself is tested with its own value.
  WRITE_RATE_LIMIT: '1000000',
  LOG_LEVEL: 'silent',
};

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ ...QUIET_ENV, ...env }, '/nonexistent-satwatt-test-dir');
}

export interface TestApp extends Runtime {
  db: TestDatabase;
  clock: ReturnType<typeof fixedClock>;
  close(): Promise<void>;
  /** JSON request through the app without a socket. */
  call(
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    now?: string;
    clock?: Clock;
    /** Compositions of the services to mount instead of the real ones (e.g. with fake rates). */
    services?: Partial<Services>;
    db?: TestDatabase;
    /** Narrower or wider provider call budgets than the published limits. */
    budgetLimits?: ContextOptions['budgetLimits'];
    /** Shorter intervals and backoff of the MQTT publisher. */
    mqtt?: Partial<MqttOptions>;
    /** A logger to read what the service logs; silent otherwise. */
    log?: Logger;
    /** Locks the test hands over; this process leads the others (on a server with DATABASE_URL, by its locks). */
    leadership?: Partial<Record<LockName, Leadership>>;
    /** How often a server's locks not held are tried again. */
    leadershipIntervalMs?: number;
  } = {},
): Promise<TestApp> {
  const db = opts.db ?? (await freshDatabase());
  const clock = fixedClock(opts.now ?? '2026-07-03T10:00:00Z');
  const runtime = await createRuntime(testConfig(opts.env), {
    database: db.database,
    clock: opts.clock ?? clock,
    log: opts.log ?? pino({ level: 'silent' }),
    services: opts.services,
    budgetLimits: opts.budgetLimits,
    mqtt: opts.mqtt,
    leadership: opts.leadership && soleLeaderships(opts.leadership),
    leadershipIntervalMs: opts.leadershipIntervalMs,
  });
  await runtime.app.ready();
  return {
    ...runtime,
    db,
    clock,
    close: async () => {
      await runtime.stop();
      if (!opts.db) await db.close();
    },
    call: (method, url, body, headers = {}) =>
      runtime.app.inject({
        method: method as 'GET',
        url,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}
