import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, meterSubscription, meterTariff } from '../../../test/fakes/eloverblik.js';
import {
  ENERGINET_GLN,
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { householdServices } from '../../../test/support/household.js';
import type { HouseholdService } from './service.js';

const API_TOKEN = 'first-start-test-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const E17 = HOUSEHOLD[0]!.id;
const PAST_DAY = '2026-10-20';

/** Every route whose answer is made with the household's charges. */
const CHARGED = [
  `/api/elprice?date=${PAST_DAY}`,
  `/api/consumer-prices?date=${PAST_DAY}`,
  `/api/cheapest?hours=3&date=${PAST_DAY}`,
  `/api/costs?from=${PAST_DAY}&to=${PAST_DAY}`,
  '/api/bill?month=2026-10',
  `/api/charges?date=${PAST_DAY}`,
];

type Elprice = { items: { tariff_dkk: number | null; total_dkk: number | null }[] };
type Health = {
  status: string;
  feeds: Record<string, { ok: boolean; starting: boolean; detail: string | null }>;
};

let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
let db: TestDatabase;
const apps: TestApp[] = [];
let household: HouseholdService;

/** A fresh process on `db`: metering token, the price feed (and so the household's refresh) on. */
async function start(chargesWaitMs?: number, env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp({
    db,
    now: '2026-11-03T10:00:00Z',
    env: {
      ...env,
      PRICE_FEED_URL: eds.url,
      PRICE_FEED_ENABLED: 'true',
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
      API_TOKEN,
    },
    services: householdServices((h) => (household = h), { chargesWaitMs }),
  });
  apps.push(app);
  return app;
}

const get = (app: TestApp, url: string) => app.call('GET', url, undefined, auth);

beforeEach(async () => {
  [eds, meter, db] = await Promise.all([
    FakeEnergiDataService.start(),
    FakeEloverblik.start(),
    freshDatabase(),
  ]);
  eds.tariffs = radiusTariffRecords();
  const from = '2025-12-31T23:00:00.000Z';
  const energinet = (name: string, price: number) =>
    meterTariff({ name, owner: ENERGINET_GLN, validFrom: from, prices: [price] });
  meter.chargeLists.set(E17, {
    subscriptions: [
      meterSubscription({ name: 'Netabonnement', owner: RADIUS_GLN, validFrom: from, price: 45 }),
    ],
    fees: [],
    tariffs: [
      meterTariff({ name: 'Nettarif C time', owner: RADIUS_GLN, validFrom: from, prices: [0.3] }),
      energinet('Transmissions nettarif', 0.043),
      energinet('Systemtarif', 0.072),
      energinet('Elafgift', 0.008),
    ],
  });
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await Promise.all([eds.close(), meter.close()]);
  await db.close();
});

describe('a first start: nothing answers without the household charges while they load', () => {
  it('refuses every charged route with 503 and Retry-After while the metering provider is slow, then answers the tariffs', async () => {
    // the meter answers once every check below is made, however slowly this machine runs them
    let answer!: () => void;
    meter.server.failAlways({ kind: 'hold', until: new Promise<void>((r) => (answer = r)) });
    const app = await start(300, { PROVIDER_TIMEOUT_MS: '60000' });
    await app.startFeeds();
    expect(household.readiness.known).toBe(false);
    for (const url of CHARGED) {
      const res = await get(app, url);
      expect([url, res.statusCode, res.headers['retry-after']]).toEqual([url, 503, '5']);
      expect(res.json<{ detail: string }>().detail).toMatch(/household's charges are loading/);
    }
    // The spot prices need no charges.
    expect((await get(app, `/api/prices?date=${PAST_DAY}`)).statusCode).toBe(200);
    const health = (await get(app, '/health')).json<Health>();
    expect(health.status).toBe('starting');
    expect(health.feeds.household).toMatchObject({ ok: false, starting: true });
    expect(health.feeds.household!.detail).toMatch(/^starting: loading the household's charges/);
    const open = (await app.call('GET', '/health')).json<Health>();
    expect(open.feeds.household).toEqual({ ok: false, starting: true });

    meter.server.heal();
    answer();
    await expect.poll(() => household.readiness.known, { timeout: 10_000 }).toBe(true);
    const day = (await get(app, `/api/elprice?date=${PAST_DAY}&area=DK1`)).json<Elprice>();
    expect(day.items).toHaveLength(24);
    expect(day.items.every((i) => i.tariff_dkk !== null && i.total_dkk !== null)).toBe(true);
    for (const url of CHARGED) expect([url, (await get(app, url)).statusCode]).toEqual([url, 200]);
    const after = (await get(app, '/health')).json<Health>();
    expect(after.feeds.household).toMatchObject({ ok: true, starting: false });
  });

  it('lets a request that comes while the charges load wait for them, within the bound', async () => {
    meter.server.failAlways({ kind: 'delay', ms: 250 });
    const app = await start(10_000);
    await app.startFeeds();
    expect(household.readiness.known).toBe(false);
    const res = await get(app, `/api/elprice?date=${PAST_DAY}&area=DK1`);
    expect(res.statusCode).toBe(200);
    expect(res.json<Elprice>().items.every((i) => i.tariff_dkk !== null)).toBe(true);
  });

  it('waits from the moment the process answers, before its features start', async () => {
    const app = await start(200);
    const res = await get(app, `/api/consumer-prices?date=${PAST_DAY}`);
    expect([res.statusCode, res.headers['retry-after']]).toEqual([503, '5']);
  });

  it('refuses at once, naming the failure and the next attempt, when the first refresh failed', async () => {
    meter.server.failAlways({ kind: 'status', status: 401 });
    const app = await start(5_000);
    await app.startFeeds();
    await expect.poll(() => household.readiness.state.state, { timeout: 10_000 }).toBe('failed');
    const started = Date.now();
    const res = await get(app, `/api/elprice?date=${PAST_DAY}`);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(res.statusCode).toBe(503);
    expect(res.json<{ detail: string }>().detail).toMatch(/first refresh failed/);
    // the next round is at the next quarter hour: 10:15 UTC, 15 minutes after the clock's 10:00
    expect(res.headers['retry-after']).toBe('900');
    const health = (await get(app, '/health')).json<Health>();
    expect(health.status).toBe('degraded');
    expect(health.feeds.household).toMatchObject({ ok: false, starting: false });
    expect(health.feeds.household!.detail).toMatch(/not known yet/);
  });

  it('knows the stored charges at once on the next start, while the provider is slow', async () => {
    const first = await start();
    await first.startFeeds();
    await expect.poll(() => household.readiness.known, { timeout: 10_000 }).toBe(true);
    await first.close();
    apps.length = 0;
    meter.server.failAlways({ kind: 'delay', ms: 1_500 });
    const second = await start(100);
    await second.startFeeds();
    expect(household.readiness.known).toBe(true);
    const day = (await get(second, `/api/elprice?date=${PAST_DAY}&area=DK1`)).json<Elprice>();
    expect(day.items.every((i) => i.tariff_dkk !== null)).toBe(true);
    expect((await get(second, '/health')).json<Health>().feeds.household!.starting).toBe(false);
  });
});
