import type { MeteringPointCharges } from '../../providers/eloverblik.js';
import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type {
  ChargePricesTable,
  ChargesTable,
  HourlyEnergyTable,
  MeterReadingsTable,
  MeteringPointsTable,
} from './tables.js';
export type EnergyTable = 'power.production' | 'power.consumption';

/** Told, at the commit of a sync that stored readings, with the synced date: the Home Assistant statistics writer listens. */
export const METERING_SYNCED_CHANNEL = 'power_metering_synced';

/** Every process listening hears it once the transaction commits (and never if it rolls back). */
export async function notifySynced(db: Db, date: string): Promise<void> {
  await sql`select pg_notify(${METERING_SYNCED_CHANNEL}, ${date})`.execute(db);
}

/** Serializes syncs of one date across processes until the transaction ends. */
export async function lockSyncDate(db: Db, date: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('power.metering.sync'), hashtext(${date}))`.execute(db);
}

export async function hasConsumptionBetween(db: Db, start: Date, end: Date): Promise<boolean> {
  const row = await db
    .selectFrom('power.consumption')
    .select('start_at')
    .where('start_at', '>=', start)
    .where('start_at', '<', end)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Master data is the provider's current view, so a known point is updated. */
export async function upsertMeteringPoints(db: Db, rows: Insertable<MeteringPointsTable>[]): Promise<void> {
  await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('power.metering_points')
      .values(chunk)
      .onConflict((oc) =>
        oc.column('metering_point_id').doUpdateSet((eb) => ({
          parent_id: eb.ref('excluded.parent_id'),
          type_of_mp: eb.ref('excluded.type_of_mp'),
          settlement_method: eb.ref('excluded.settlement_method'),
          reading_occurrence: eb.ref('excluded.reading_occurrence'),
          meter_number: eb.ref('excluded.meter_number'),
          postcode: eb.ref('excluded.postcode'),
          city_name: eb.ref('excluded.city_name'),
          balance_supplier_name: eb.ref('excluded.balance_supplier_name'),
          synced_at: sql<Date>`now()`,
        })),
      )
      .execute(),
  );
}

/** Returns how many rows were new. */
export async function insertReadings(db: Db, rows: MeterReadingsTable[]): Promise<number> {
  const inserted = await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('power.meter_readings')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .returning('start_at')
      .execute(),
  );
  return inserted.reduce((n, r) => n + r.length, 0);
}

/** A charge as the meter lists it, as a row of power.charges. */
export function chargeRow(
  meteringPointId: string,
  c: MeteringPointCharges['charges'][number],
): Insertable<ChargesTable> {
  return {
    metering_point_id: meteringPointId,
    kind: c.kind,
    name: c.name,
    description: c.description,
    owner_gln: c.owner,
    period_type: c.periodType,
    quantity: c.quantity,
    valid_from: c.validFrom,
    valid_to: c.validTo,
  };
}

/** The new charge's id, or undefined when it was stored before. */
export async function insertCharge(db: Db, row: Insertable<ChargesTable>): Promise<number | undefined> {
  const inserted = await db
    .insertInto('power.charges')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('charge_id')
    .executeTakeFirst();
  return inserted?.charge_id;
}

export async function insertChargePrices(db: Db, rows: ChargePricesTable[]): Promise<void> {
  await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('power.charge_prices')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .execute(),
  );
}

/**
 * Fresh planner statistics for the hourly tables and the metered hours the database keeps from
 * them: PGlite runs no autovacuum, and without statistics a year's costs were planned as a few
 * dozen hours (a nested loop, 27 instead of 18 ms). ANALYZE samples a bounded number of rows.
 */
export async function analyzeEnergy(db: Db): Promise<void> {
  await sql`analyze power.consumption, power.production, power.metered_hours`.execute(db);
}

/** Returns how many rows were new; existing hours are kept as they are. */
export async function insertEnergy(db: Db, table: EnergyTable, rows: HourlyEnergyTable[]): Promise<number> {
  const inserted = await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto(table)
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .returning('start_at')
      .execute(),
  );
  return inserted.reduce((n, r) => n + r.length, 0);
}

export interface EnergyReadingRow {
  metering_point_id: string;
  start_at: Date;
  resolution_minutes: number;
  quantity_kwh: string;
  quality: string | null;
}

/** Every reading of [start, end) at its own resolution. */
export async function energyBetween(
  db: Db,
  table: EnergyTable,
  start: Date,
  end: Date,
): Promise<EnergyReadingRow[]> {
  return db
    .selectFrom(table)
    .select(['metering_point_id', 'start_at', 'resolution_minutes', 'quantity_kwh', 'quality'])
    .where('start_at', '>=', start)
    .where('start_at', '<', end)
    .orderBy('start_at')
    .orderBy('metering_point_id')
    .execute() as Promise<EnergyReadingRow[]>;
}

/**
 * The readings of [start, end) summed per hour and point: an hour of quarters is one row, its
 * quality the lowest code among them (A02 missing, A03 estimated before A04 measured).
 */
export async function energyHoursBetween(
  db: Db,
  table: EnergyTable,
  start: Date,
  end: Date,
): Promise<EnergyReadingRow[]> {
  const result = await sql<EnergyReadingRow>`
    select metering_point_id, date_trunc('hour', start_at at time zone 'UTC') at time zone 'UTC' as start_at,
           60 as resolution_minutes, sum(quantity_kwh) as quantity_kwh, min(quality) as quality
      from ${sql.table(table)}
     where start_at >= ${start} and start_at < ${end}
     group by 1, 2
     order by 2, 1`.execute(db);
  return result.rows;
}

/** The last Danish day the daily sync stored, or null before its first. */
export async function lastSyncedDay(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('power.metering_sync_state')
    .select(sql<string>`last_synced_day::text`.as('day'))
    .executeTakeFirst();
  return row?.day ?? null;
}

/** Moves the last synced day forward (never back: a sync of an older day leaves it). */
export async function markSynced(db: Db, day: string): Promise<void> {
  await sql`
    insert into power.metering_sync_state (id, last_synced_day) values (true, ${day}::date)
    on conflict (id) do update set last_synced_day = greatest(power.metering_sync_state.last_synced_day, excluded.last_synced_day),
                                   updated_at = now()`.execute(db);
}

// ── what the other features read ───────────────────────────────────────────

/**
 * The metered hours (or quarter hours) of [start, end), as a relation for a statement to join:
 * consumption (every point's summed), production to the grid and the solar inverter's energy, as
 * the database's triggers keep them from the readings.
 */
export function meteredHoursBetween(start: Date, end: Date) {
  return sql`
    select start_at, date_dk, minutes, consumption_kwh, production_kwh, solar_kwh
      from power.metered_hours
     where start_at >= ${start} and start_at < ${end}`;
}

/**
 * The last Danish day of [from, to) whose consumption is metered in every interval (its readings
 * cover the day's 23, 24 or 25 hours), or null: metering arrives a day or more late, so the latest
 * day with a whole figure is not yesterday.
 */
export async function lastMeteredDay(db: Db, from: Date, to: Date): Promise<string | null> {
  const result = await sql<{ date: string }>`
    select date_dk::text as date
      from power.metered_hours
     where start_at >= ${from} and start_at < ${to} and consumption_kwh is not null
     group by date_dk
    having sum(minutes) * 60 = extract(epoch from ((date_dk + 1)::timestamp at time zone 'Europe/Copenhagen')
                                                 - (date_dk::timestamp at time zone 'Europe/Copenhagen'))
     order by date_dk desc
     limit 1`.execute(db);
  return result.rows[0]?.date ?? null;
}

export interface ChargeListingRow {
  kind: ChargesTable['kind'];
  /** the type of the point the meter listed it for (E18: production), null for a point not stored */
  type_of_mp: string | null;
  name: string;
  owner_gln: string;
  period_type: string | null;
  valid_from: Date;
  valid_to: Date | null;
  /** its prices by position, null without any */
  prices: string[] | null;
}

/** Every charge link the meter ever listed (each read adds what is new), with the point's type and its prices. */
export async function chargeListings(db: Db): Promise<ChargeListingRow[]> {
  const result = await sql<ChargeListingRow>`
    select c.kind, mp.type_of_mp, c.name, c.owner_gln, c.period_type, c.valid_from, c.valid_to,
           (select array_agg(p.price_dkk::text order by p.position) from power.charge_prices p
             where p.charge_id = c.charge_id) as prices
      from power.charges c
      left join power.metering_points mp using (metering_point_id)
     order by c.valid_from, c.charge_id`.execute(db);
  return result.rows;
}
