import { Big } from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
  tariffRecord,
  touHours,
} from '../../../test/fakes/energidataservice.js';
import { FakeHomeAssistant } from '../../../test/fakes/home-assistant.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges } from '../../../test/support/costs.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { haStatisticsServices } from '../../../test/support/ha-statistics.js';
import { HaUnreachable } from '../../providers/home-assistant.js';
import type { Costs } from '../costs/schemas.js';
import { insertEnergy } from '../metering/repository.js';
import type { HaStatisticsService } from './service.js';

/**
 * Three days of a quarter-hour meter (2026-10-24 to 26, the 25-hour day between), priced by the
 * writer itself as /api/costs would (it fetches the prices of metered days never fetched), in
 * batches of 20 hours: the writing cut off and restarted, a day priced late, a tariff changed.
 */
const API_TOKEN = 'ha-writer-test-token-0123';
const HOUR = 3_600_000;
const FIRST = Date.parse('2026-10-23T22:00:00Z');
const END = Date.parse('2026-10-26T23:00:00Z');
const HOURS = (END - FIRST) / HOUR;

let db: TestDatabase;
let eds: FakeEnergiDataService;
let ha: FakeHomeAssistant;
let app: TestApp;
let writer: HaStatisticsService;

const start = async () => {
  app = await startTestApp({
    db,
    now: '2026-11-05T10:00:00Z',
    env: {
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: eds.url,
      API_TOKEN,
      HA_URL: ha.url,
      HA_TOKEN: ha.token,
    },
    services: haStatisticsServices((w) => (writer = w), { options: { batchHours: 20 } }),
  });
};

/** Each hour once, every sum the one before plus the hour: nothing missing, nothing counted twice. */
function expectChained(id: string, hours: number) {
  const rows = ha.hours(id);
  expect(rows, id).toHaveLength(hours);
  rows.forEach((r, i) => {
    expect(Date.parse(r.start), id).toBe(FIRST + i * HOUR);
    const before = i === 0 ? 0 : rows[i - 1]!.sum!;
    expect(Math.abs(r.sum! - before - r.state!), `${id} ${r.start}`).toBeLessThan(1e-9);
  });
  return rows;
}

async function costsByHour(): Promise<Map<number, Big>> {
  const res = await app.call('GET', '/api/costs?from=2026-10-24&to=2026-10-26&resolution=hour', undefined, {
    authorization: `Bearer ${API_TOKEN}`,
  });
  const byHour = new Map<number, Big>();
  for (const item of res.json<Costs>().days.flatMap((d) => d.items ?? [])) {
    if (item.cost_dkk === null) continue;
    const hour = Math.floor(Date.parse(item.time_dk) / HOUR) * HOUR;
    byHour.set(hour, (byHour.get(hour) ?? new Big(0)).plus(item.cost_dkk));
  }
  return byHour;
}

beforeAll(async () => {
  db = await freshDatabase();
  eds = await FakeEnergiDataService.start();
  ha = await FakeHomeAssistant.start();
  eds.publication.set('2026-10-25', 'none');
  eds.tariffs = radiusTariffRecords();
  await start();
  await refreshCharges(app, eds);
  const rows = [];
  for (let t = FIRST, k = 0; t < END; t += 900_000, k++)
    rows.push({
      metering_point_id: '571313100000012345',
      start_at: new Date(t),
      quantity_kwh: ((((k * 29) % 300) + 10) / 1000).toFixed(3),
      quality: 'A04',
      resolution_minutes: 15,
    });
  await insertEnergy(db.database.db, 'power.consumption', rows);
});
afterAll(async () => {
  await app.close();
  await db.close();
  await ha.close();
  await eds.close();
});

describe('writing the statistics', () => {
  it('goes on after a restart in the middle from the last hour Home Assistant took, with its sum', async () => {
    // the third import (consumption's hours 40 to 59) is cut off unanswered
    ha.dropAtImport = 3;
    expect(await writer.writeNow().catch((e: unknown) => e)).toBeInstanceOf(HaUnreachable);
    ha.dropAtImport = null;
    expect(ha.hours('satwatt:grid_consumption')).toHaveLength(40);
    await app.close();
    await start();
    const before = ha.commands.length;
    const r = await writer.writeNow();
    const resent = ha.commands.slice(before) as {
      metadata: { statistic_id: string };
      stats: { start: string }[];
    }[];
    expect(resent[0]!.metadata.statistic_id).toBe('satwatt:grid_consumption');
    expect(resent[0]!.stats[0]!.start).toBe(
      new Date(FIRST + 40 * HOUR).toISOString().slice(0, 19) + '+00:00',
    );
    expect(r.hours).toBe(HOURS - 40 + 24);
    const consumption = expectChained('satwatt:grid_consumption', HOURS);
    const total = (
      await db.database.db
        .selectFrom('power.consumption')
        .select((eb) => eb.fn.sum<string>('quantity_kwh').as('kwh'))
        .executeTakeFirstOrThrow()
    ).kwh;
    expect(Math.abs(consumption.at(-1)!.sum! - Number(total))).toBeLessThan(1e-9);
  });

  it('stops the cost at the last hour fully priced, never writing a cost of 0 for a day without prices', async () => {
    const cost = expectChained('satwatt:grid_consumption_cost', 24);
    expect(cost.at(-1)!.start).toBe('2026-10-24T21:00:00.000Z');
    expect(cost.every((h) => h.state! > 0)).toBe(true);
    const byHour = await costsByHour();
    for (const h of cost)
      expect(Math.abs(h.state! - Number(byHour.get(Date.parse(h.start))))).toBeLessThan(1e-9);
  });

  it('goes on with the cost when the day is priced, the sums running on from the last hour written', async () => {
    eds.publication.delete('2026-10-25');
    // the price service asks for a day again a minute after it was not there
    app.clock.advance(120_000);
    const r = await writer.writeNow();
    expect(r.hours).toBe(HOURS - 24);
    const cost = expectChained('satwatt:grid_consumption_cost', HOURS);
    const byHour = await costsByHour();
    for (const h of cost)
      expect(Math.abs(h.state! - Number(byHour.get(Date.parse(h.start))))).toBeLessThan(1e-9);
    expect(await writer.writeNow()).toEqual({ hours: 0, messages: 0 });
  });

  it('rewrites the cost from the first hour a changed tariff changes, with every later sum', async () => {
    const costBefore = ha.hours('satwatt:grid_consumption_cost');
    const [winter, ...older] = radiusTariffRecords();
    eds.tariffs = [
      { ...winter!, ValidFrom: '2026-10-26T00:00:00' },
      tariffRecord({
        validFrom: '2026-10-01T00:00:00',
        validTo: '2026-10-26T00:00:00',
        hourly: touHours(0.2, 0.4, 1.2),
      }),
      ...older,
    ];
    await refreshCharges(app, eds);
    const before = ha.commands.length;
    const r = await writer.writeNow();
    const sent = ha.commands.slice(before) as {
      metadata: { statistic_id: string };
      stats: { start: string }[];
    }[];
    expect(new Set(sent.map((c) => c.metadata.statistic_id))).toEqual(
      new Set(['satwatt:grid_consumption_cost']),
    );
    expect(sent[0]!.stats[0]!.start).toBe('2026-10-23T22:00:00+00:00');
    expect(r.hours).toBe(HOURS);
    const cost = expectChained('satwatt:grid_consumption_cost', HOURS);
    const byHour = await costsByHour();
    for (const h of cost)
      expect(Math.abs(h.state! - Number(byHour.get(Date.parse(h.start))))).toBeLessThan(1e-9);
    // the 26th kept its tariff and its hours their states; only their sums moved
    const firstKept = cost.findIndex((h) => h.start === '2026-10-25T23:00:00.000Z');
    expect(cost[firstKept]!.state).toBe(costBefore[firstKept]!.state);
    expect(cost[firstKept]!.sum).not.toBe(costBefore[firstKept]!.sum);
  });

  it('keeps an hour whose tariff is gone as Home Assistant holds it, and goes on with the hours after', async () => {
    const before = ha.hours('satwatt:grid_consumption_cost');
    await sql`update power.elprices set tariff_dkk = null where time_dk = ${new Date(FIRST)}`.execute(
      db.database.db,
    );
    await insertEnergy(
      db.database.db,
      'power.consumption',
      [0, 1, 2, 3].map((q) => ({
        metering_point_id: '571313100000012345',
        start_at: new Date(END + q * 900_000),
        quantity_kwh: '0.100',
        quality: 'A04',
        resolution_minutes: 15,
      })),
    );
    app.clock.advance(120_000);
    expect((await writer.writeNow()).hours).toBe(2);
    const cost = expectChained('satwatt:grid_consumption_cost', HOURS + 1);
    expect(cost[0]).toEqual(before[0]);
    expect(cost.at(-1)!.start).toBe(new Date(END).toISOString());
    expectChained('satwatt:grid_consumption', HOURS + 1);
  });
});
