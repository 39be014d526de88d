import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik } from '../../../test/fakes/eloverblik.js';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { FakeHomeAssistant } from '../../../test/fakes/home-assistant.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges } from '../../../test/support/costs.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { haStatisticsServices } from '../../../test/support/ha-statistics.js';
import { freePort } from '../../../test/support/process.js';
import { ROOMY } from '../../../test/support/providers.js';
import { JobRunner } from '../../jobs/job.js';
import { FeedHealth } from '../../shared/health.js';
import { insertEnergy, notifySynced } from '../metering/repository.js';
import { DEFAULT_HA_STATISTICS_OPTIONS, HaStatisticsService } from './service.js';

/** Home Assistant refusing the token, down at the start, and the writer woken by a metering sync. */
const API_TOKEN = 'ha-connection-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const FAST = { initialBackoffMs: 20, maxBackoffMs: 100, settleMs: 20, timeoutMs: 2_000 };

let db: TestDatabase;
let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
const open: { close(): Promise<void> }[] = [];

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function app(env: Record<string, string>): Promise<TestApp> {
  const a = await startTestApp({
    db,
    now: '2026-10-28T10:00:00Z',
    env: {
      API_TOKEN,
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: eds.url,
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
      ...env,
    },
    services: haStatisticsServices(() => {}, { options: FAST }),
    budgetLimits: { eloverblik: ROOMY },
  });
  open.push(a);
  eds.tariffs = radiusTariffRecords();
  await refreshCharges(a, eds);
  return a;
}

const feed = async (a: TestApp) =>
  (await a.call('GET', '/health', undefined, auth)).json<{ feeds: Record<string, Record<string, unknown>> }>()
    .feeds['ha-statistics']!;

beforeAll(async () => {
  // one database for the three: what one wrote to its Home Assistant is recorded for the next
  db = await freshDatabase();
  eds = await FakeEnergiDataService.start();
  meter = await FakeEloverblik.start();
  meter.readingOccurrence = 'PT15M';
});
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});
afterAll(async () => {
  await db.close();
  await eds.close();
  await meter.close();
});

describe('the connection to Home Assistant', () => {
  it('says a refused token once in /health and the log, never with the token, and does not try it again', async () => {
    const ha = await FakeHomeAssistant.start();
    open.push(ha);
    const token = 'hunter2-not-a-token-of-this-home-assistant';
    const a = await app({ HA_URL: ha.url, HA_TOKEN: token });
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }),
    );
    const health = new FeedHealth('ha-statistics', true);
    const writer = new HaStatisticsService(
      {
        db: a.ctx.database.db,
        database: a.ctx.database,
        clock: a.clock,
        log,
        health,
        shutdown: a.ctx.shutdown,
        homeAssistant: { url: ha.url, token },
        pricing: { area: 'DK1', markup: '0', vatRate: '0.25' },
        maxBytes: 1 << 20,
        fillDays: async () => {},
      },
      { ...DEFAULT_HA_STATISTICS_OPTIONS, ...FAST },
    );
    const runner = new JobRunner(writer.job(), a.ctx);
    open.push({
      close: async () => {
        await runner.stop();
        await writer.stop();
      },
    });
    await writer.start();
    runner.start();
    await until('the refusal', () => health.detail?.startsWith('stopped') === true);
    await notifySynced(a.ctx.database.db, '2026-10-25');
    await new Promise((r) => setTimeout(r, 300));
    expect(ha.authAttempts).toBe(1);
    expect(health).toMatchObject({
      ok: false,
      failures: 1,
      lastError: 'Home Assistant refused the token (auth_invalid: Invalid access token or password)',
    });
    expect(lines.filter((l) => l.includes('auth_invalid'))).toHaveLength(1);
    expect(lines.join('')).not.toContain('hunter2');

    // the same through the feature: /health says it, without the token
    await a.startFeeds();
    await until('the feature', async () => (await feed(a)).ok === false);
    const body = (await a.call('GET', '/health', undefined, auth)).body;
    expect(body).toContain('auth_invalid');
    expect(body).not.toContain('hunter2');
  });

  it('says an import Home Assistant refuses in /health and tries it again at the next sync, not sooner', async () => {
    const ha = await FakeHomeAssistant.start();
    open.push(ha);
    ha.tokens.set('fake-ha-user-token', { admin: false });
    const a = await app({ HA_URL: ha.url, HA_TOKEN: 'fake-ha-user-token' });
    await insertEnergy(a.ctx.database.db, 'power.consumption', [
      {
        metering_point_id: '571313100000012345',
        start_at: new Date('2026-10-21T10:00:00Z'),
        quantity_kwh: '1',
        quality: 'A04',
      },
    ]);
    await a.startFeeds();
    await until('the refusal', async () => (await feed(a)).failures === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(ha.imports).toBe(1);
    expect(await feed(a)).toMatchObject({
      ok: false,
      last_error: 'Home Assistant refused the command (unauthorized: Unauthorized)',
    });
    await notifySynced(a.ctx.database.db, '2026-10-21');
    await until('the next try', () => ha.imports === 2);
    expect(ha.hours('satwatt:grid_consumption')).toEqual([]);
    // the next test's Home Assistant is to get only its own hour
    await a.ctx.database.db
      .deleteFrom('power.consumption')
      .where('start_at', '=', new Date('2026-10-21T10:00:00Z'))
      .execute();
  });

  it('waits for a Home Assistant that is down at the start, with backoff, and writes once it is up', async () => {
    const port = await freePort();
    const a = await app({ HA_URL: `http://127.0.0.1:${port}`, HA_TOKEN: 'fake-ha-admin-token' });
    await insertEnergy(a.ctx.database.db, 'power.consumption', [
      {
        metering_point_id: '571313100000012345',
        start_at: new Date('2026-10-20T10:00:00Z'),
        quantity_kwh: '1.25',
        quality: 'A04',
      },
    ]);
    await a.startFeeds();
    await until('two failures', async () => ((await feed(a)).failures as number) >= 2);
    const down = await feed(a);
    expect(down).toMatchObject({ ok: false });
    expect(String(down.detail)).toMatch(/trying again in \d+ s$/);
    // the rest of the service answers meanwhile
    expect(
      (await a.call('GET', '/api/costs?from=2026-10-20&to=2026-10-20', undefined, auth)).statusCode,
    ).toBe(200);
    const ha = await FakeHomeAssistant.start({ port });
    open.push(ha);
    await until('the hour written', () => ha.hours('satwatt:grid_consumption').length === 1);
    expect(ha.hours('satwatt:grid_consumption')).toEqual([
      { start: '2026-10-20T10:00:00.000Z', state: 1.25, sum: 1.25 },
    ]);
    await until('ok', async () => (await feed(a)).ok === true);
  });

  it('writes the hours of a day once a metering sync has stored them, its cost with the prices it fetches', async () => {
    const ha = await FakeHomeAssistant.start();
    open.push(ha);
    const a = await app({ HA_URL: ha.url, HA_TOKEN: ha.token });
    await a.startFeeds();
    await until('the first round', () => ha.connections === 1);
    expect(ha.imports).toBe(0);
    const res = await a.call('POST', '/metering/sync?date=2026-10-25', undefined, auth);
    expect(res.json()).toMatchObject({ status: 'synced', consumption: 100, production: 100 });
    // the production's value is the last of the four written
    await until('the day written', () => ha.hours('satwatt:grid_production_value').length === 25);
    expect(ha.hours('satwatt:grid_consumption')).toHaveLength(25);
    expect(ha.hours('satwatt:grid_production')).toHaveLength(25);
    expect(ha.hours('satwatt:grid_production_value')).toHaveLength(25);
    expect(ha.hours('satwatt:grid_consumption')[0]!.start).toBe('2026-10-24T22:00:00.000Z');
    expect(ha.errors).toEqual([]);
  });
});
