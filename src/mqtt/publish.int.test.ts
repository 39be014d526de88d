import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../test/fakes/energidataservice.js';
import { FakeKraken } from '../../test/fakes/kraken-ws.js';
import { MemoryRates, RATES_0703 } from '../../test/fakes/market-rates.js';
import { FakeStrike, STRIKE_KEY } from '../../test/fakes/strike.js';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { refreshCharges } from '../../test/support/costs.js';
import { Listener, Mosquitto } from '../../test/support/mosquitto.js';
import { btcService } from '../btc/index.js';
import type { PriceMessage, QuoteMessage } from '../btc/market/schemas.js';
import type { Cheapest, ConsumerPrices } from '../power/costs/schemas.js';
import type { PricesDay } from '../power/prices/schemas.js';

/**
 * A whole app with MQTT on, read by a real MQTT client as Home Assistant reads the broker: the
 * retained discovery configs and states, each state equal to the API's answer for the same
 * instant of the test's clock. Quarter 12:00–12:15 Danish summer time on 2026-07-03.
 */
const NOW = '2026-07-03T10:07:30Z';
const TOMORROW = '2026-07-04';
const state = (object: string) => `satwatt/${object}/state`;

let broker: Mosquitto;
let eds: FakeEnergiDataService;
let kraken: FakeKraken;
let strike: FakeStrike;
let app: TestApp;
let ha: Listener;

beforeAll(async () => {
  [broker, eds, kraken, strike] = await Promise.all([
    Mosquitto.start(),
    FakeEnergiDataService.start(),
    FakeKraken.start(),
    FakeStrike.start(),
  ]);
  eds.publication.set(TOMORROW, 'none');
  eds.publication.set('2026-07-05', 'none');
  const rates = new MemoryRates(RATES_0703);
  app = await startTestApp({
    now: NOW,
    env: {
      MQTT_URL: broker.url,
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: eds.url,
      SPOT_FEED_ENABLED: 'true',
      SPOT_FEED_URL: kraken.url,
      QUOTE_FEED_ENABLED: 'true',
      QUOTE_FEED_URL: strike.url,
      STRIKE_API_KEY: STRIKE_KEY,
    },
    services: { btc: (ctx) => btcService(ctx, { rates, only: ['market'] }) },
    mqtt: { recheckMs: 100, feedsIntervalMs: 100, birthDelayMs: 0 },
  });
  strike.now = () => app.clock.now();
  eds.tariffs = radiusTariffRecords();
  await refreshCharges(app, eds);
  ha = await Listener.connect(broker.url);
  await app.startFeeds();
  await ha.until('satwatt/status', (p) => p === 'online');
});

afterAll(async () => {
  await ha?.close();
  await app?.close();
  await Promise.all([broker?.close(), eds?.close(), kraken?.close(), strike?.close()]);
});

async function api<T>(url: string): Promise<T> {
  const res = await app.call('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

const inForce = <T extends { time_dk: string }>(items: T[], minutes: (i: T) => number, at: string) =>
  items.find(
    (i) =>
      Date.parse(i.time_dk) <= Date.parse(at) && Date.parse(at) < Date.parse(i.time_dk) + minutes(i) * 60_000,
  )!;

describe('Home Assistant discovery over MQTT', () => {
  it('announces each public entity once, retained, with the device, availability and HA classes', async () => {
    const configs = await waitFor(
      () => {
        const c = ha.configs();
        return c.has('satwatt_feed_prices') && c;
      },
      20_000,
      'the discovery configs',
    );
    await ha.until(state('spot_price'), (p) => p !== 'None');
    const ids = [...configs.keys()].filter((id) => !id.startsWith('satwatt_feed_')).sort();
    expect(ids).toEqual(
      [
        'satwatt_broker_premium',
        'satwatt_btc_price_dkk',
        'satwatt_btc_price_eur',
        'satwatt_btc_price_usd',
        'satwatt_cheapest_3h_price',
        'satwatt_cheapest_3h_start',
        'satwatt_consumer_price',
        'satwatt_quote_sats',
        'satwatt_spot_price',
        'satwatt_tomorrow_published',
        'satwatt_co2',
        ...['cheapest', 'greenest'].flatMap((k) =>
          ['minutes', 'end_hour', 'start', 'end'].map((f) => `satwatt_${k}_window_${f}`),
        ),
        'satwatt_cheapest_window_price',
        'satwatt_greenest_window_co2',
        'satwatt_cheap_now',
        'satwatt_green_now',
      ].sort(),
    );
    const spot = configs.get('satwatt_spot_price')!;
    expect(spot).toMatchObject({
      unique_id: 'satwatt_spot_price',
      state_topic: 'satwatt/spot_price/state',
      availability_topic: 'satwatt/status',
      json_attributes_topic: 'satwatt/spot_price/attributes',
      unit_of_measurement: 'DKK/kWh',
      state_class: 'measurement',
      device: { identifiers: ['satwatt'], name: 'satwatt', sw_version: '0.1.0' },
    });
    expect(spot).not.toHaveProperty('device_class');
    expect(configs.get('satwatt_cheapest_3h_start')).toMatchObject({ device_class: 'timestamp' });
    expect(configs.get('satwatt_cheapest_3h_start')).not.toHaveProperty('state_class');
    expect(configs.get('satwatt_feed_prices')).toMatchObject({
      device_class: 'problem',
      state_topic: 'satwatt/feed_prices/state',
    });
    // single-component discovery under the node id satwatt, and every message retained
    const retained = await ha.retainedNow();
    expect(retained.get('homeassistant/sensor/satwatt/satwatt_spot_price/config')).toBe(JSON.stringify(spot));
    expect(
      retained.get('homeassistant/binary_sensor/satwatt/satwatt_tomorrow_published/config'),
    ).toBeDefined();
    expect(retained.get('satwatt/status')).toBe('online');
    expect(retained.get(state('spot_price'))).toBeDefined();
    // nothing of the household's own without MQTT_PRIVATE
    const privateTopics = [...retained.keys()].filter((t) => /portfolio|pnl|electricity_cost/.test(t));
    expect(privateTopics.filter((t) => retained.get(t) !== '')).toEqual([]);
  });

  it('publishes the power figures the API answers for the same instant', async () => {
    const prices = await api<PricesDay>('/api/prices?area=DK1');
    const quarter = inForce(prices.items, (i) => i.resolution_minutes, NOW);
    expect(quarter.time_dk).toBe('2026-07-03T12:00:00+02:00');
    const spot = await ha.until(state('spot_price'), (p) => p !== 'None');
    expect(spot).toBe(new Big(quarter.price_dkk).div(1000).toFixed());

    const consumer = await api<ConsumerPrices>('/api/consumer-prices?resolution=quarter');
    const now = inForce(consumer.items, () => 15, NOW);
    expect(now.total).not.toBeNull();
    expect(await ha.until(state('consumer_price'))).toBe(String(now.total));

    const cheapest = await api<Cheapest>('/api/cheapest?hours=3');
    expect(await ha.until(state('cheapest_3h_start'))).toBe(cheapest.start_dk);
    expect(await ha.until(state('cheapest_3h_price'))).toBe(String(cheapest.average_dkk_kwh));
    expect(await ha.until(state('tomorrow_published'))).toBe('OFF');

    const attributes = JSON.parse(await ha.until('satwatt/spot_price/attributes')) as {
      raw_today: { start: string; end: string; value: number }[];
      tomorrow: unknown[];
      tomorrow_valid: boolean;
    };
    expect(attributes.raw_today).toHaveLength(96);
    expect(attributes.raw_today[48]).toEqual({
      start: '2026-07-03T10:00Z',
      end: '2026-07-03T10:15Z',
      value: Number(new Big(prices.items[48]!.price_dkk).div(1000).round(4, Big.roundHalfUp).toFixed()),
    });
    expect(Date.parse(attributes.raw_today[48]!.start)).toBe(Date.parse(prices.items[48]!.time_dk));
    expect([attributes.tomorrow, attributes.tomorrow_valid]).toEqual([[], false]);
    const consumerAttributes = JSON.parse(await ha.until('satwatt/consumer_price/attributes')) as {
      today: number[];
    };
    expect(consumerAttributes.today).toEqual(
      consumer.items.map((i) => Number(new Big(i.total!).round(4, Big.roundHalfUp).toFixed())),
    );
  });

  it('publishes the BTC price, quote and premium the API answers', async () => {
    kraken.tick('BTC/EUR', 61_234.5);
    kraken.tick('BTC/USD', 66_100.25);
    const price = await waitFor(
      async () => {
        const p = await api<PriceMessage>('/api/price/latest');
        return p.btc_eur === 61_234.5 && p.btc_usd === 66_100.25 && p;
      },
      10_000,
      'the ticks stored',
    );
    // the first publish was at start; this one within the 10 s throttle
    expect(await ha.until(state('btc_price_eur'), (p) => p === '61234.5', 15_000)).toBe(
      String(price.btc_eur),
    );
    // the two ticks may be stored as two rows, the second published at the throttle's next turn
    expect(await ha.until(state('btc_price_usd'), (p) => p === String(price.btc_usd), 15_000)).toBe(
      String(price.btc_usd),
    );
    // 61234.5 × 7.460512 = 456840.722064, to the cent as the API answers it
    expect(await ha.until(state('btc_price_dkk'), (p) => p === String(price.btc_dkk))).toBe(
      new Big('61234.5').times(RATES_0703.eur_dkk).round(2, Big.roundHalfUp).toFixed(2),
    );
    const quote = await waitFor(
      async () => {
        const res = await app.call('GET', '/api/quote/latest');
        return res.statusCode === 200 && res.json<QuoteMessage>();
      },
      15_000,
      'a quote',
    );
    expect(await ha.until(state('quote_sats'), (p) => p !== 'None')).toBe(String(quote.quote_sats));
    expect(await ha.until(state('broker_premium'), (p) => p === String(quote.all_in_pct))).toBe(
      String(quote.all_in_pct),
    );
  });

  it('publishes one state per feed of /health, on when the feed fails', async () => {
    const health = await api<{ feeds: Record<string, { ok: boolean }> }>('/health');
    for (const [name, feed] of Object.entries(health.feeds).filter(([n]) => n !== 'mqtt'))
      // an entity id holds [a-z0-9_]: metering-sync is feed_metering_sync
      expect(await ha.until(state(`feed_${name.replace(/-/g, '_')}`)), name).toBe(feed.ok ? 'OFF' : 'ON');
    expect(ha.last.has(state('feed_mqtt'))).toBe(false);
  });
});

describe('states on change', () => {
  it('sends a BTC price at most once per 10 s however fast it moves, then the latest', async () => {
    const topic = state('btc_price_eur');
    const from = ha.heard.length;
    for (let i = 1; i <= 30; i++) {
      kraken.tick('BTC/EUR', 62_000 + i);
      await new Promise((r) => setTimeout(r, 100));
    }
    const sent = () => ha.heard.slice(from).filter((m) => m.topic === topic);
    expect(sent().length).toBeLessThanOrEqual(1);
    expect(await ha.until(topic, (p) => p === '62030', 15_000)).toBe('62030');
    expect(sent().length).toBeLessThanOrEqual(2);
    expect((await api<PriceMessage>('/api/price/latest')).btc_eur).toBe(62_030);
  });

  it('moves to the next quarter hour’s price when the clock crosses the boundary', async () => {
    const before = await ha.until(state('spot_price'), (p) => p !== 'None');
    app.clock.set('2026-07-03T10:15:00Z');
    const prices = await api<PricesDay>('/api/prices?area=DK1');
    const next = inForce(prices.items, (i) => i.resolution_minutes, '2026-07-03T10:15:00Z');
    const expected = new Big(next.price_dkk).div(1000).toFixed();
    expect(expected).not.toBe(before);
    expect(await ha.until(state('spot_price'), (p) => p === expected)).toBe(expected);
  });

  it('announces tomorrow once published, and a new day at midnight', async () => {
    expect(ha.last.get(state('tomorrow_published'))).toBe('OFF');
    eds.publication.set(TOMORROW, 'full');
    app.clock.set('2026-07-03T11:30:00Z');
    await ha.until(state('tomorrow_published'), (p) => p === 'ON');
    const attributes = JSON.parse(ha.last.get('satwatt/spot_price/attributes')!) as {
      raw_tomorrow: unknown[];
    };
    expect(attributes.raw_tomorrow).toHaveLength(96);

    app.clock.set('2026-07-03T22:00:05Z'); // 00:00:05 on the 4th in Denmark
    const day = await api<PricesDay>(`/api/prices?area=DK1&date=${TOMORROW}`);
    const first = new Big(day.items[0]!.price_dkk).div(1000).toFixed();
    await ha.until(state('spot_price'), (p) => p === first);
    await ha.until(state('tomorrow_published'), (p) => p === 'OFF');
  });

  it('republishes everything when Home Assistant announces itself', async () => {
    const topic = 'homeassistant/sensor/satwatt/satwatt_spot_price/config';
    const config = await ha.until(topic);
    await ha.client.publishAsync(topic, '', { retain: true, qos: 1 });
    await ha.until(topic, (p) => p === '');
    await ha.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    expect(await ha.until(topic, (p) => p !== '')).toBe(config);
  });
});
