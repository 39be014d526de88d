import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.close());

const HOURS = [
  '2026-03-28T23:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-03-29T02:00:00Z',
  '2026-10-25T01:00:00Z',
];
const POINTS = ['571313100000000001', '571313100000000002'];

type HourRow = { start_at: Date; date_dk: string; c: string | null; p: string | null; s: string | null };

/** What power.metered_hours must hold: the readings merged by hour, computed here from scratch. */
async function fromReadings() {
  const r = await sql<HourRow>`
    select start_at, (start_at at time zone 'Europe/Copenhagen')::date::text as date_dk,
           sum(c) as c, sum(p) as p, sum(s) as s
      from (select start_at, quantity_kwh as c, null::numeric as p, null::numeric as s from power.consumption
            union all select start_at, null, quantity_kwh, null from power.production
            union all select start_at, null, null, energy_kwh from power.solar) u
     group by start_at order by start_at`.execute(t.database.db);
  return normalized(r.rows);
}

async function kept() {
  const r = await sql<HourRow>`
    select start_at, date_dk::text as date_dk, consumption_kwh as c, production_kwh as p, solar_kwh as s
      from power.metered_hours order by start_at`.execute(t.database.db);
  return normalized(r.rows);
}

/** 1.50 and 1.5 are the same kWh. */
const norm = (v: string | null) => (v === null ? null : String(Number(v)));
const normalized = <R extends { c: string | null; p: string | null; s: string | null }>(rows: R[]) =>
  rows.map((x) => ({ ...x, c: norm(x.c), p: norm(x.p), s: norm(x.s) }));

type Op =
  | { kind: 'insert'; table: 'consumption' | 'production'; point: number; hours: number[]; kwh: string }
  | { kind: 'solar'; hours: number[]; kwh: string }
  | { kind: 'update'; table: 'consumption' | 'production' | 'solar'; hour: number; kwh: string }
  | { kind: 'delete'; table: 'consumption' | 'production' | 'solar'; hour: number }
  | { kind: 'truncate'; table: 'consumption' | 'production' | 'solar' };

const kwh = fc.integer({ min: 0, max: 99_999 }).map((n) => (n / 1000).toFixed(3));
const hourSet = fc.uniqueArray(fc.integer({ min: 0, max: HOURS.length - 1 }), { minLength: 1, maxLength: 4 });
const metered = fc.constantFrom('consumption' as const, 'production' as const);
const anyTable = fc.constantFrom('consumption' as const, 'production' as const, 'solar' as const);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    table: metered,
    point: fc.integer({ min: 0, max: 1 }),
    hours: hourSet,
    kwh,
  }),
  fc.record({ kind: fc.constant('solar' as const), hours: hourSet, kwh }),
  fc.record({
    kind: fc.constant('update' as const),
    table: anyTable,
    hour: fc.integer({ min: 0, max: HOURS.length - 1 }),
    kwh,
  }),
  fc.record({ kind: fc.constant('delete' as const), table: anyTable, hour: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('truncate' as const), table: anyTable }),
);

async function apply(o: Op) {
  const db = t.database.db;
  const column = (table: string) => sql.raw(table === 'solar' ? 'energy_kwh' : 'quantity_kwh');
  switch (o.kind) {
    case 'insert':
      // as the metering sync writes: a day's readings in one statement, a stored hour kept
      await db
        .insertInto(`power.${o.table}`)
        .values(
          o.hours.map((h) => ({
            metering_point_id: POINTS[o.point]!,
            start_at: new Date(HOURS[h]!),
            quantity_kwh: o.kwh,
            quality: 'A04',
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    case 'solar':
      await db
        .insertInto('power.solar')
        .values(
          o.hours.map((h) => ({
            start_at: new Date(HOURS[h]!),
            energy_kwh: o.kwh,
            power_w: '1',
            voltage_v: '230',
            current_a: '1',
            frequency_hz: '50',
            temperature_c: '20',
            total_yield_kwh: '1',
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    case 'update':
      await sql`update ${sql.table(`power.${o.table}`)} set ${column(o.table)} = ${o.kwh}::numeric
                 where start_at = ${new Date(HOURS[o.hour]!)}`.execute(db);
      return;
    case 'delete':
      await sql`delete from ${sql.table(`power.${o.table}`)} where start_at = ${new Date(HOURS[o.hour]!)}`.execute(
        db,
      );
      return;
    case 'truncate':
      await sql`truncate ${sql.table(`power.${o.table}`)}`.execute(db);
  }
}

describe('power.metered_hours, kept by the database from the readings', () => {
  it('equals the readings merged by hour after any inserts, changes, removals and truncations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const table of ['consumption', 'production', 'solar'])
          await sql`delete from ${sql.table(`power.${table}`)}`.execute(t.database.db);
        for (const o of ops) {
          await apply(o);
          expect(await kept()).toEqual(await fromReadings());
        }
      }),
      { numRuns: 40 },
    );
  });

  it('gives each hour its Danish day, on the 23- and 25-hour days', async () => {
    const rows = await kept();
    for (const r of rows)
      expect(r.date_dk).toBe(r.start_at.toISOString() < '2026-10-01' ? '2026-03-29' : '2026-10-25');
    const db = t.database.db;
    await sql`delete from power.consumption`.execute(db);
    await apply({ kind: 'insert', table: 'consumption', point: 0, hours: [0, 1, 2, 3], kwh: '1.000' });
    expect((await kept()).map((r) => r.date_dk)).toEqual([
      '2026-03-29',
      '2026-03-29',
      '2026-03-29',
      '2026-10-25',
    ]);
  });
});
