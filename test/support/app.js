import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { fixedClock } from '../../src/shared/clock.js';
import { freshDatabase } from './db.js';
import { FEEDS_OFF } from './process.js';
/** Every feed off unless a test turns it on; providers point nowhere unless a test points them at a fake. */
const QUIET_ENV = {
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
export function testConfig(env = {}) {
    return loadConfig({ ...QUIET_ENV, ...env }, '/nonexistent-satwatt-test-dir');
}
export async function startTestApp(opts = {}) {
    const db = opts.db ?? (await freshDatabase());
    const clock = fixedClock(opts.now ?? '2026-07-03T10:00:00Z');
    const runtime = await createRuntime(testConfig(opts.env), {
        database: db.database,
        clock: opts.clock ?? clock,
        log: pino({ level: 'silent' }),
        services: opts.services,
        budgetLimits: opts.budgetLimits,
    });
    await runtime.app.ready();
    return {
        ...runtime,
        db,
        clock,
        close: async () => {
            await runtime.stop();
            if (!opts.db)
                await db.close();
        },
        call: (method, url, body, headers = {}) => runtime.app.inject({
            method: method,
            url,
            headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
            payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        }),
    };
}
//# sourceMappingURL=app.js.map