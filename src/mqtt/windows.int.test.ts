import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { refreshCharges } from '../../test/support/costs.js';
import { freshDatabase, type TestDatabase } from '../../test/support/db.js';
import { Listener, Mosquitto } from '../../test/support/mosquitto.js';
import type { Co2Row } from '../providers/energidataservice-co2.js';
import { insertForecast, upsertRealized } from '../power/co2/repository.js';
import type { CheapestWindow, GreenestWindow } from '../power/windows/schemas.js';
import { danishDayBounds, danishDaySteps, toDanishIso } from '../shared/danish-time.js';
import { HA_ATTRIBUTES_LIMIT } from './attributes.js';

/**
 * The price, CO₂ and window entities against a real Mosquitto, read as Home Assistant reads
 * them: the Nord Pool shape of the attributes on days of 92, 96 and 100 quarter hours and their
 * size; the windows set through the numbers' command topics, found by the service behind
 * /api/cheapest and /api/greenest, kept over a restart of satwatt and of an empty broker; and
 * "cheap now" at the window's edges on the test's clock.
 */
const NOW = '2026-07-03T10:07:30Z'; // 12:07:30 Danish summer time
const state = (object: string) => `satwatt/${object}/state`;
const attributes = (object: string) => `satwatt/${object}/attributes`;

let broker: Mosquitto;
let eds: FakeEnergiDataService;
let db: TestDatabase;
let app: TestApp;
let ha: Listener;

async function start(now: string): Promise<TestApp> {
  const started = await startTestApp({
    now,
    db,
    env: { MQTT_URL: broker.url, GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: eds.url },
    log: process.env.DEBUG_MQTT ? pino({ level: 'debug' }) : undefined,
    mqtt: { recheckMs: 50, feedsIntervalMs: 1_000, birthDelayMs: 0 },
  });
  await refreshCharges(started, eds);
  await started.startFeeds();
  return started;
}

/** 5-minute CO₂ values of both areas over [from, to). */
const co2Rows = (from: string, to: string, value: (t: number) => number): Co2Row[] => {
  const out: Co2Row[] = [];
  for (let t = Date.parse(from); t < Date.parse(to); t += 300_000)
    for (const area of ['DK1', 'DK2'] as const)
      out.push({ timeUtc: new Date(t), area, gKwh: String(value(t)) });
  return out;
};

beforeAll(async () => {
  [broker, eds, db] = await Promise.all([Mosquitto.start(), FakeEnergiDataService.start(), freshDatabase()]);
  eds.tariffs = radiusTariffRecords();
  // CO₂: 200 g/kWh everywhere but a dip of 50 from 01:00 to 02:00 Danish time on the 4th
  const dip = [Date.parse('2026-07-03T23:00:00Z'), Date.parse('2026-07-04T00:00:00Z')];
  await upsertRealized(
    db.database.db,
    new Date(NOW),
    co2Rows('2026-07-02T22:00:00Z', '2026-07-03T10:05:00Z', () => 210),
  );
  await insertForecast(
    db.database.db,
    new Date(NOW),
    co2Rows('2026-07-03T10:05:00Z', '2026-07-05T22:00:00Z', (t) => (t >= dip[0]! && t < dip[1]! ? 50 : 200)),
  );
  app = await start(NOW);
  ha = await Listener.connect(broker.url);
  await ha.until('satwatt/status', (p) => p === 'online');
}, 60_000);

afterAll(async () => {
  await ha?.close();
  await app?.close();
  await db?.close();
  await Promise.all([broker?.close(), eds?.close()]);
});

async function api<T>(url: string): Promise<T> {
  const res = await app.call('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

interface Raw {
  start: string;
  end: string;
  value: number | null;
}
interface DayAttributes {
  raw_today: Raw[];
  raw_tomorrow: Raw[];
  today: (number | null)[];
  tomorrow: (number | null)[];
  tomorrow_valid: boolean;
  min: number;
  max: number;
  mean: number;
}

const utc = (t: Date) => `${t.toISOString().slice(0, 16)}Z`;

const windowOf = async (kind: 'cheapest' | 'greenest', minutes: number) => {
  const url = (before: string) =>
    `/api/${kind}?minutes=${minutes}&after=${encodeURIComponent(app.clock.now().toISOString())}&before=${encodeURIComponent(before)}`;
  return api<CheapestWindow | GreenestWindow>(url('2026-07-04T07:00:00+02:00'));
};

describe('the windows as entities', () => {
  it('announces the numbers with a command topic', async () => {
    await ha.until(state('cheapest_window_start'), (p) => p !== 'None');
    const configs = ha.configs();
    expect(configs.get('satwatt_cheapest_window_minutes')).toMatchObject({
      command_topic: 'satwatt/cheapest_window_minutes/set',
      state_topic: 'satwatt/cheapest_window_minutes/state',
      min: 15,
      max: 720,
      step: 15,
      mode: 'box',
      unit_of_measurement: 'min',
    });
    expect(configs.get('satwatt_greenest_window_end_hour')).toMatchObject({ min: 0, max: 23, step: 1 });
    expect(configs.get('satwatt_cheapest_window_start')).toMatchObject({ device_class: 'timestamp' });
    expect(configs.get('satwatt_cheap_now')).toMatchObject({ state_topic: 'satwatt/cheap_now/state' });
    expect(
      (await ha.retainedNow()).get('homeassistant/number/satwatt/satwatt_cheapest_window_minutes/config'),
    ).toBeDefined();
  });

  it('finds the window /api/cheapest and /api/greenest find, by 07:00 by default', async () => {
    const cheapest = (await windowOf('cheapest', 180)) as CheapestWindow;
    expect(await ha.until(state('cheapest_window_minutes'))).toBe('180');
    expect(await ha.until(state('cheapest_window_start'), (p) => p === cheapest.start_dk)).toBe(
      cheapest.start_dk,
    );
    expect(await ha.until(state('cheapest_window_end'))).toBe(cheapest.end_dk);
    expect(await ha.until(state('cheapest_window_price'))).toBe(String(cheapest.average_dkk_kwh));
    const greenest = (await windowOf('greenest', 180)) as GreenestWindow;
    expect(await ha.until(state('greenest_window_start'))).toBe(greenest.start_dk);
    expect(await ha.until(state('greenest_window_co2'))).toBe(String(greenest.average_g_kwh));
    // 12:00-12:15: realized 210 to 12:05, then the forecast's 200
    expect(await ha.until(state('co2'))).toBe('203.33');
    const co2 = JSON.parse(await ha.until(attributes('co2'))) as DayAttributes;
    expect(co2.raw_today).toHaveLength(96);
    expect(co2.raw_today[48]).toEqual({
      start: '2026-07-03T10:00Z',
      end: '2026-07-03T10:15Z',
      value: 203.33,
    });
    expect(co2.raw_tomorrow[4]).toEqual({ start: '2026-07-03T23:00Z', end: '2026-07-03T23:15Z', value: 50 });
    expect([co2.tomorrow_valid, co2.min, co2.max]).toEqual([true, 200, 210]);
  });

  it('moves the window when its length is set, and keeps it over a restart with an empty broker', async () => {
    await ha.client.publishAsync('satwatt/cheapest_window_minutes/set', '60', { qos: 1 });
    await ha.client.publishAsync('satwatt/greenest_window_minutes/set', '30.0', { qos: 1 });
    await ha.client.publishAsync('satwatt/greenest_window_end_hour/set', '24', { qos: 1 }); // refused
    expect(await ha.until(state('cheapest_window_minutes'), (p) => p === '60')).toBe('60');
    const cheapest = (await windowOf('cheapest', 60)) as CheapestWindow;
    await ha.until(state('cheapest_window_end'), (p) => p === cheapest.end_dk);
    expect(Date.parse(cheapest.end_dk) - Date.parse(cheapest.start_dk)).toBe(3_600_000);
    expect(ha.last.get(state('cheapest_window_start'))).toBe(cheapest.start_dk);
    await ha.until(state('greenest_window_start'), (p) => p === '2026-07-04T01:00:00+02:00');
    expect(ha.last.get(state('greenest_window_end'))).toBe('2026-07-04T01:30:00+02:00');
    expect(ha.last.get(state('greenest_window_end_hour'))).toBe('7');

    await app.close();
    await broker.restart(); // nothing retained survives: the settings must come from satwatt
    app = await start(NOW);
    expect(await ha.until(state('cheapest_window_minutes'), (p) => p === '60', 30_000)).toBe('60');
    expect(await ha.until(state('cheapest_window_start'))).toBe(cheapest.start_dk);
    expect(await ha.until(state('cheapest_window_end'))).toBe(cheapest.end_dk);
    expect(await ha.until(state('greenest_window_minutes'))).toBe('30');
  }, 60_000);

  it("turns 'cheap now' on at the window's start and off at its end", async () => {
    const w = (await windowOf('cheapest', 60)) as CheapestWindow;
    const [s, e] = [Date.parse(w.start_dk), Date.parse(w.end_dk)];
    expect(s).toBeGreaterThan(app.clock.now().getTime());
    app.clock.set(new Date(s - 1_000).toISOString());
    expect(await ha.until(state('cheap_now'))).toBe('OFF');
    app.clock.set(new Date(s).toISOString());
    expect(await ha.until(state('cheap_now'), (p) => p === 'ON')).toBe('ON');
    expect(ha.last.get(state('cheapest_window_start'))).toBe(w.start_dk);
    app.clock.set(new Date(e - 15 * 60_000).toISOString()); // its last quarter: the window stays
    await new Promise((r) => setTimeout(r, 500));
    expect(ha.last.get(state('cheap_now'))).toBe('ON');
    expect(ha.last.get(state('cheapest_window_start'))).toBe(w.start_dk);
    app.clock.set(new Date(e).toISOString());
    expect(await ha.until(state('cheap_now'), (p) => p === 'OFF')).toBe('OFF');
    // the next window is for the next morning's 07:00, not a second one before this one's
    const next = Date.parse(await ha.until(state('cheapest_window_start'), (p) => p !== w.start_dk));
    expect(next).toBeGreaterThanOrEqual(Date.parse('2026-07-04T07:00:00+02:00'));
    expect(toDanishIso(new Date(next))).toMatch(/^2026-07-0[45]T/);
  });
});

describe('the price sensors in the shape of the Nord Pool and Energi Data Service integrations', () => {
  it.each([
    ['2026-08-03', '2026-08-03T10:00:00Z', 96, 96, ['spot_price', 'consumer_price']],
    ['2026-10-24', '2026-10-24T10:00:00Z', 96, 100, ['spot_price', 'consumer_price']],
    ['2026-10-25', '2026-10-25T11:00:00Z', 100, 96, ['spot_price', 'consumer_price']],
    // the fake's grid tariffs end with 2026
    ['2027-03-28', '2027-03-28T10:00:00Z', 92, 96, ['spot_price']],
    // the clock only goes forward: a quarter hour it crosses is a refresh
  ])('on %s: every quarter of today and tomorrow, under 16 KB', async (day, at, today, tomorrow, objects) => {
    app.clock.set(at);
    const steps = danishDaySteps(day, 15);
    expect(steps).toHaveLength(today);
    for (const object of objects) {
      const payload = await ha.until(
        attributes(object),
        (p) => (JSON.parse(p) as DayAttributes).raw_today[0]?.start === utc(steps[0]!),
      );
      const a = JSON.parse(payload) as DayAttributes;
      expect(a.raw_today.map((r) => r.start)).toEqual(steps.map(utc));
      expect(a.raw_today.at(-1)!.end).toBe(utc(danishDayBounds(day).end));
      expect(a.today).toEqual(a.raw_today.map((r) => r.value));
      expect(a.raw_tomorrow).toHaveLength(tomorrow);
      expect(a.tomorrow).toEqual(a.raw_tomorrow.map((r) => r.value));
      expect(a.tomorrow_valid).toBe(true);
      const values = a.today.filter((v): v is number => v !== null);
      expect(a.min).toBe(Math.min(...values));
      expect(a.max).toBe(Math.max(...values));
      expect(Math.abs(a.mean - values.reduce((s, v) => s + v, 0) / values.length)).toBeLessThan(0.0001);
      // Home Assistant adds its own few attributes (name, unit, icon, state class): leave them 512 bytes
      const bytes = Buffer.byteLength(payload);
      console.info(`${object} attributes on ${day} (${today} + ${tomorrow} quarters): ${bytes} bytes`);
      expect(bytes).toBeLessThan(HA_ATTRIBUTES_LIMIT - 512);
    }
    const prices = await api<{ items: { time_dk: string; price_dkk: number }[] }>(
      `/api/prices?date=${day}&area=DK1`,
    );
    const spot = JSON.parse(ha.last.get(attributes('spot_price'))!) as DayAttributes;
    expect(spot.today[5]).toBe(Number((prices.items[5]!.price_dkk / 1000).toFixed(4)));
  });
});
