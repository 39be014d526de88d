import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, meterTariff } from '../../test/fakes/eloverblik.js';
import {
  ENERGINET_GLN,
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { householdServices } from '../../test/support/household.js';
import { Listener, Mosquitto } from '../../test/support/mosquitto.js';
import type { ConsumerPrices } from '../power/costs/schemas.js';
import type { HouseholdService } from '../power/household/service.js';

/**
 * A first start with a slow metering provider: the consumer price is unknown while the
 * household's charges load, and published the moment they are known, not at the next quarter
 * hour (the test's clock stands still, so no quarter hour comes).
 */
const NOW = '2026-07-03T10:07:30Z';
const state = (object: string) => `satwatt/${object}/state`;

let broker: Mosquitto;
let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
let app: TestApp;
let ha: Listener;
let household: HouseholdService;

beforeAll(async () => {
  [broker, eds, meter] = await Promise.all([
    Mosquitto.start(),
    FakeEnergiDataService.start(),
    FakeEloverblik.start(),
  ]);
  eds.tariffs = radiusTariffRecords();
  const from = '2025-12-31T23:00:00.000Z';
  const tariff = (name: string, owner: string, price: number) =>
    meterTariff({ name, owner, validFrom: from, prices: [price] });
  meter.chargeLists.set(HOUSEHOLD[0]!.id, {
    subscriptions: [],
    fees: [],
    tariffs: [
      tariff('Nettarif C time', RADIUS_GLN, 0.3),
      tariff('Transmissions nettarif', ENERGINET_GLN, 0.043),
      tariff('Systemtarif', ENERGINET_GLN, 0.072),
      tariff('Elafgift', ENERGINET_GLN, 0.008),
    ],
  });
  // three calls (token, metering points, charges) of 1.2 s each
  meter.server.failAlways({ kind: 'delay', ms: 1_200 });
  app = await startTestApp({
    now: NOW,
    env: {
      MQTT_URL: broker.url,
      PRICE_FEED_URL: eds.url,
      PRICE_FEED_ENABLED: 'true',
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
    },
    services: householdServices((h) => (household = h)),
    mqtt: { recheckMs: 100, feedsIntervalMs: 100, birthDelayMs: 0 },
  });
  ha = await Listener.connect(broker.url);
  await app.startFeeds();
});

afterAll(async () => {
  await ha?.close();
  await app?.close();
  await Promise.all([broker?.close(), eds?.close(), meter?.close()]);
});

describe('the consumer price of a first start', () => {
  it('is unknown while the charges load and published as soon as they are known', async () => {
    await ha.until(state('spot_price'), (p) => p !== 'None');
    expect(household.readiness.known).toBe(false);
    expect(await ha.until(state('consumer_price'))).toBe('None');
    expect(await ha.until(state('cheapest_3h_price'))).toBe('None');
    // a first round of its feed is no problem
    expect(await ha.until(state('feed_household'))).toBe('OFF');

    const published = await ha.until(state('consumer_price'), (p) => p !== 'None', 15_000);
    expect(household.readiness.known).toBe(true);
    const res = await app.call('GET', '/api/consumer-prices?date=2026-07-03&resolution=quarter');
    expect(res.statusCode, res.body).toBe(200);
    const now = res.json<ConsumerPrices>().items.find((i) => i.time_dk === '2026-07-03T12:00:00+02:00')!;
    expect(now.total).not.toBeNull();
    expect(published).toBe(String(now.total));
    expect(await ha.until(state('cheapest_3h_price'), (p) => p !== 'None')).not.toBe('None');
  });
});
