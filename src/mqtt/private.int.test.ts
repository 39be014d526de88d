import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../test/fakes/energidataservice.js';
import { FakeKraken } from '../../test/fakes/kraken-ws.js';
import { MemoryRates, RATES_0703 } from '../../test/fakes/market-rates.js';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../test/support/db.js';
import { refreshCharges } from '../../test/support/costs.js';
import { Listener, Mosquitto } from '../../test/support/mosquitto.js';
import type { AppContext } from '../context.js';
import { btcService } from '../btc/index.js';
import type { Costs } from '../power/costs/schemas.js';
import { insertEnergy } from '../power/metering/repository.js';

/**
 * The household's own figures (portfolio, electricity costs) go out only with MQTT_PRIVATE, equal
 * to the API's answers; a later run without it takes them off the broker again.
 */
const NOW = '2026-07-03T10:07:30Z';
const TOKEN = 'mqtt-private-test-token-0123';
const auth = { authorization: `Bearer ${TOKEN}` };
const state = (object: string) => `satwatt/${object}/state`;

let broker: Mosquitto;
let eds: FakeEnergiDataService;
let kraken: FakeKraken;
let db: TestDatabase;
let ha: Listener;
const rates = new MemoryRates(RATES_0703);
const btc = (ctx: AppContext) => btcService(ctx, { rates, only: ['ledger', 'market', 'portfolio'] });

function start(privately: boolean): Promise<TestApp> {
  return startTestApp({
    db,
    now: NOW,
    env: {
      API_TOKEN: TOKEN,
      MQTT_URL: broker.url,
      MQTT_PRIVATE: String(privately),
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: eds.url,
      SPOT_FEED_ENABLED: 'true',
      SPOT_FEED_URL: kraken.url,
    },
    services: { btc },
    mqtt: { recheckMs: 100, btcIntervalMs: 200, birthDelayMs: 0 },
  });
}

beforeAll(async () => {
  [broker, eds, kraken, db] = await Promise.all([
    Mosquitto.start(),
    FakeEnergiDataService.start(),
    FakeKraken.start(),
    freshDatabase(),
  ]);
  ha = await Listener.connect(broker.url);
});

afterAll(async () => {
  await ha?.close();
  await Promise.all([broker?.close(), eds?.close(), kraken?.close()]);
  await db?.close();
});

describe('MQTT_PRIVATE', () => {
  it('adds the portfolio and the electricity costs, equal to the API’s answers', async () => {
    const app = await start(true);
    try {
      eds.tariffs = radiusTariffRecords();
      await refreshCharges(app, eds);
      const post = await app.call(
        'POST',
        '/api/events',
        {
          type: 'exchange_to_wallet',
          occurred_at: '2026-07-01',
          from_wallet: 1,
          to_wallet: 4,
          sats: 1_234_567,
          fee_sats: 250,
          amount: '700.00',
          currency: 'EUR',
        },
        auth,
      );
      expect(post.statusCode, post.body).toBe(201);
      // prices stored as the API stores them; 07-01 metered whole (24 hours), yesterday (07-02)
      // only in part, as metering comes late, and an hour of today
      for (const day of ['2026-07-01', '2026-07-02', '2026-07-03'])
        expect((await app.call('GET', `/api/consumer-prices?date=${day}`)).statusCode).toBe(200);
      const reading = (iso: string, kwh: string) => ({
        metering_point_id: '571313100000012345',
        start_at: new Date(iso),
        quantity_kwh: kwh,
        quality: 'A04',
      });
      await insertEnergy(app.ctx.database.db, 'power.consumption', [
        ...Array.from({ length: 24 }, (_, h) =>
          reading(new Date(Date.parse('2026-06-30T22:00:00Z') + h * 3_600_000).toISOString(), '0.5'),
        ),
        reading('2026-07-02T05:00:00Z', '1.5'),
        reading('2026-07-02T16:00:00Z', '0.75'),
        reading('2026-07-03T06:00:00Z', '2'),
      ]);
      await app.startFeeds();
      kraken.tick('BTC/EUR', 61_000.5);

      const portfolio = await waitFor(
        async () => {
          const p = (await app.call('GET', '/api/portfolio', undefined, auth)).json<{
            sats: number;
            value: { eur: string } | null;
            unrealized_pnl: { eur: string } | null;
            price: { btc_eur: string } | null;
          }>();
          return p.price?.btc_eur === '61000.50' && p;
        },
        10_000,
        'the portfolio at the new price',
      );
      expect(await ha.until(state('portfolio_value_eur'), (p) => p === portfolio.value!.eur)).toBe('753.09');
      expect(await ha.until(state('portfolio_sats'))).toBe('1234567');
      expect(await ha.until(state('unrealized_pnl_eur'), (p) => p === portfolio.unrealized_pnl!.eur)).toBe(
        '53.09',
      );

      const costs = async (from: string, to: string) => {
        const res = await app.call('GET', `/api/costs?from=${from}&to=${to}`, undefined, auth);
        expect(res.statusCode, res.body).toBe(200);
        return res.json<Costs>();
      };
      const whole = await costs('2026-07-01', '2026-07-01');
      expect(whole.days[0]).toMatchObject({ complete: true, hours: 24 });
      expect(whole.total.cost_dkk).toBeGreaterThan(0);
      // yesterday is not metered whole: the sensor tells the last day that is, never yesterday's part
      expect((await costs('2026-07-02', '2026-07-02')).days[0]).toMatchObject({ complete: false, hours: 2 });
      expect(JSON.parse(await ha.until(state('electricity_cost_yesterday')))).toEqual({
        value: whole.total.cost_dkk,
        last_reset: '2026-07-01T00:00:00+02:00',
      });
      expect(JSON.parse(await ha.until('satwatt/electricity_cost_yesterday/attributes'))).toEqual({
        date: '2026-07-01',
        consumption_kwh: 12,
      });
      // the month so far: through its last day metered whole, nothing of it left out
      expect(JSON.parse(await ha.until(state('electricity_cost_month')))).toEqual({
        value: whole.total.cost_dkk,
        last_reset: '2026-07-01T00:00:00+02:00',
      });
      expect(JSON.parse(await ha.until('satwatt/electricity_cost_month/attributes'))).toEqual({
        from: '2026-07-01',
        through: '2026-07-01',
        complete: true,
        missing_days: [],
      });
      const configs = ha.configs();
      expect(configs.get('satwatt_portfolio_value_eur')).toMatchObject({
        device_class: 'monetary',
        state_class: 'total',
        unit_of_measurement: 'EUR',
      });
      expect(configs.get('satwatt_electricity_cost_month')).toMatchObject({
        device_class: 'monetary',
        state_class: 'total',
        unit_of_measurement: 'DKK',
        value_template: '{{ value_json.value }}',
        last_reset_value_template: '{{ value_json.last_reset }}',
      });
    } finally {
      await app.close();
    }
  });

  it('takes the private entities off the broker when a later run has it off', async () => {
    expect((await ha.retainedNow()).get(state('portfolio_sats'))).toBe('1234567');
    const app = await start(false);
    try {
      await app.startFeeds();
      await ha.until('satwatt/status', (p) => p === 'online');
      await ha.until(state('spot_price'), (p) => p !== 'None');
      const retained = await ha.retainedNow();
      expect([...retained.keys()].filter((t) => /portfolio|pnl|electricity_cost/.test(t))).toEqual([]);
      expect(retained.get(state('spot_price'))).toBeDefined();
    } finally {
      await app.close();
    }
  });
});
