import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { FakeHomeAssistant } from '../../../test/fakes/home-assistant.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges, storeDay } from '../../../test/support/costs.js';
import { haStatisticsServices } from '../../../test/support/ha-statistics.js';
import { addDays, danishDayBounds } from '../../shared/danish-time.js';
import type { Bill } from '../bill/schemas.js';
import type { Costs } from '../costs/schemas.js';
import { insertEnergy } from '../metering/repository.js';
import type { HaStatisticsService } from './service.js';

/**
 * October 2026 of a quarter-hour meter (2,980 quarters: the 25-hour day has 100) with production
 * in the daylight hours, every quarter priced, Radius's tariffs, a supplier's markup and
 * subscription: written to a fake Home Assistant in batches of 200 hours.
 */
const API_TOKEN = 'ha-month-test-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const BATCH = 200;
const FIRST = new Date('2026-09-30T22:00:00Z');
const END = new Date('2026-10-31T23:00:00Z');
const HOUR = 3_600_000;

let eds: FakeEnergiDataService;
let ha: FakeHomeAssistant;
let app: TestApp;
let writer: HaStatisticsService;
let written: { hours: number; messages: number };
const consumptionByHour = new Map<number, Big>();

const kwhOf = (k: number) => ((((k * 37) % 250) + 20) / 1000).toFixed(3);
const producedOf = (k: number) => (((k * 13) % 400) / 1000).toFixed(3);

beforeAll(async () => {
  eds = await FakeEnergiDataService.start();
  ha = await FakeHomeAssistant.start();
  app = await startTestApp({
    now: '2026-11-05T10:00:00Z',
    env: {
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: eds.url,
      API_TOKEN,
      SUPPLIER_MARKUP_DKK_KWH: '0.05',
      SUPPLIER_SUBSCRIPTION_DKK_MONTH: '29',
      HA_URL: ha.url,
      HA_TOKEN: ha.token,
    },
    services: haStatisticsServices((w) => (writer = w), { options: { batchHours: BATCH } }),
  });
  eds.tariffs = radiusTariffRecords();
  await refreshCharges(app, eds);
  for (let d = '2026-10-01'; d <= '2026-10-31'; d = addDays(d, 1)) {
    const day = Number(d.slice(8));
    await storeDay(app, d, (h, q) => String(300 + h * 10 + q * 7 + (day % 5) * 3.125));
  }
  const consumption = [];
  const production = [];
  for (let t = FIRST.getTime(), k = 0; t < END.getTime(); t += 900_000, k++) {
    const reading = { metering_point_id: '571313100000012345', start_at: new Date(t), quality: 'A04' };
    consumption.push({ ...reading, quantity_kwh: kwhOf(k), resolution_minutes: 15 });
    const hour = Math.floor(t / HOUR) * HOUR;
    consumptionByHour.set(hour, (consumptionByHour.get(hour) ?? new Big(0)).plus(kwhOf(k)));
    const utcHour = new Date(t).getUTCHours();
    if (utcHour >= 8 && utcHour < 15)
      production.push({
        ...reading,
        metering_point_id: '571313100000067890',
        quantity_kwh: producedOf(k),
        resolution_minutes: 15,
      });
  }
  await insertEnergy(app.ctx.database.db, 'power.consumption', consumption);
  await insertEnergy(app.ctx.database.db, 'power.production', production);
  written = await writer.writeNow();
}, 60_000);
afterAll(async () => {
  await app.close();
  await ha.close();
  await eds.close();
});

const get = async <T>(url: string) => {
  const res = await app.call('GET', url, undefined, auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
};
const close = (a: number | undefined, b: Big | number, eps = 1e-9) =>
  expect(Math.abs(Number(a) - Number(b)), `${a} vs ${String(b)}`).toBeLessThan(eps);

describe('a month of a quarter-hour meter written as statistics', () => {
  it('writes every UTC hour of the month once, the 25-hour day with its 25, each sum the last plus the hour', () => {
    expect(ha.errors).toEqual([]);
    const hours = ha.hours('satwatt:grid_consumption');
    expect(hours).toHaveLength(745);
    expect(hours[0]!.start).toBe(FIRST.toISOString());
    expect(hours.at(-1)!.start).toBe(new Date(END.getTime() - HOUR).toISOString());
    const { start, end } = danishDayBounds('2026-10-25');
    expect(hours.filter((h) => new Date(h.start) >= start && new Date(h.start) < end)).toHaveLength(25);
    for (const id of [
      'grid_consumption',
      'grid_production',
      'grid_consumption_cost',
      'grid_production_value',
    ]) {
      const rows = ha.hours(`satwatt:${id}`);
      expect(rows.length, id).toBeGreaterThan(0);
      rows.forEach((r, i) => {
        expect(new Date(r.start).getTime() % HOUR).toBe(0);
        if (i > 0) expect(Date.parse(r.start) - Date.parse(rows[i - 1]!.start)).toBeGreaterThanOrEqual(HOUR);
        close(r.sum, (i === 0 ? 0 : rows[i - 1]!.sum!) + r.state!, 1e-9 * Math.max(1, r.sum!));
      });
    }
  });

  it("puts each hour's four quarters of kWh in its hour", () => {
    for (const h of ha.hours('satwatt:grid_consumption'))
      expect(h.state).toBe(Number(consumptionByHour.get(Date.parse(h.start))!.toString()));
    const total = [...consumptionByHour.values()].reduce((s, v) => s.plus(v), new Big(0));
    close(ha.hours('satwatt:grid_consumption').at(-1)!.sum, total, 1e-9);
    expect(ha.hours('satwatt:grid_production')).toHaveLength(7 * 31);
  });

  it('costs each hour as /api/costs prices its intervals, and sells the production at its spot', async () => {
    const costs = await get<Costs>('/api/costs?from=2026-10-01&to=2026-10-31&resolution=hour');
    const cost = new Map<number, Big>();
    const value = new Map<number, Big>();
    for (const item of costs.days.flatMap((d) => d.items ?? [])) {
      const hour = Math.floor(Date.parse(item.time_dk) / HOUR) * HOUR;
      cost.set(hour, (cost.get(hour) ?? new Big(0)).plus(item.cost_dkk ?? 0));
      if (item.sold_value_dkk !== null)
        value.set(hour, (value.get(hour) ?? new Big(0)).plus(item.sold_value_dkk));
    }
    const costHours = ha.hours('satwatt:grid_consumption_cost');
    expect(costHours).toHaveLength(745);
    for (const h of costHours) close(h.state, cost.get(Date.parse(h.start))!, 1e-9);
    const valueHours = ha.hours('satwatt:grid_production_value');
    expect(valueHours).toHaveLength(7 * 31);
    for (const h of valueHours) close(h.state, value.get(Date.parse(h.start))!, 1e-9);
    // /api/costs rounds each day to the øre: 31 days differ by at most 31 half øre
    expect(Math.abs(costHours.at(-1)!.sum! - costs.total.cost_dkk!)).toBeLessThanOrEqual(31 * 0.005);
    expect(Math.abs(valueHours.at(-1)!.sum! - costs.total.sold_value_dkk!)).toBeLessThanOrEqual(31 * 0.005);
  });

  it("sums to /api/bill's lines per kWh (spot, tariffs, markup) with VAT, to the øre of each line; no subscription", async () => {
    const bill = await get<Bill>('/api/bill?month=2026-10');
    expect(bill).toMatchObject({ complete: true, intervals: 2980, intervals_priced: 2980 });
    const perKwh = bill.lines.filter((l) => l.kind !== 'subscription');
    expect(perKwh.map((l) => l.kind)).toEqual(['spot', 'tariff', 'tariff', 'tariff', 'tariff', 'markup']);
    expect(bill.lines.filter((l) => l.kind === 'subscription').map((l) => l.amount_dkk)).toEqual([29]);
    const lines = perKwh.reduce((s, l) => s.plus(l.amount_dkk), new Big(0));
    const month = new Big(ha.hours('satwatt:grid_consumption_cost').at(-1)!.sum!);
    // each line is rounded to the øre on its own: at most half an øre each, before VAT
    const before = month.div('1.25');
    expect(Number(before.minus(lines).abs().toString())).toBeLessThanOrEqual(perKwh.length * 0.005);
    expect(Number(month.minus(lines.times('1.25')).abs().toString())).toBeLessThanOrEqual(
      perKwh.length * 0.005 * 1.25,
    );
    expect(Number(month.round(2).toString())).not.toBe(bill.total_dkk);
  });

  it('sends the month in batches of 200 hours, one message each, and nothing more when nothing changed', async () => {
    const commands = Math.ceil(745 / BATCH) * 2 + Math.ceil((7 * 31) / BATCH) * 2;
    expect(written).toEqual({ hours: 745 * 2 + 7 * 31 * 2, messages: commands + 1 });
    expect(ha.imports).toBe(commands);
    const connections = ha.connections;
    expect(await writer.writeNow()).toEqual({ hours: 0, messages: 0 });
    expect(ha.connections).toBe(connections);
  });
});
