import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { DayAheadPrice } from '../../providers/energidataservice.js';
import { householdTariffsAt } from '../household/repository.js';
import type { ElpricesTable, PricesTable } from './tables.js';

/** An existing (time_dk, price_area) pair is left untouched. Returns the rows inserted. */
export async function insertPrices(db: Db, rows: DayAheadPrice[]): Promise<number> {
  const prices = rows.map((r) => ({
    time_dk: r.timeUtc,
    price_area: r.area,
    resolution_minutes: r.minutes,
    price_dkk: r.priceDkk,
    price_eur: r.priceEur,
  }));
  const results = await writeInChunks(db, prices, (db, chunk) =>
    db
      .insertInto('power.prices')
      .values(chunk)
      .onConflict((oc) => oc.columns(['time_dk', 'price_area']).doNothing())
      .executeTakeFirst(),
  );
  return results.reduce((n, r) => n + Number(r.numInsertedOrUpdatedRows ?? 0), 0);
}

/**
 * Derives the hourly rows of [start, end) from the hours whose periods are all stored (four
 * quarters or one hourly row): the exact numeric mean, plus the household's tariffs of that
 * wall-clock hour (power.household_charges). Existing hourly rows are left untouched.
 */
export async function deriveElprices(db: Db, start: Date, end: Date): Promise<number> {
  const result = await sql`
    insert into power.elprices (time_dk, price_area, price_dkk, tariff_dkk, total_dkk,
                                transmission_dkk_kwh, system_dkk_kwh, electricity_tax_dkk_kwh,
                                other_tariffs_dkk_kwh)
    select h.hour, h.price_area, h.price_dkk, t.grid * 1000, h.price_dkk + t.grid * 1000,
           t.transmission, t.system, t.electricity_tax, t.other
      from (select date_trunc('hour', p.time_dk at time zone 'UTC') at time zone 'UTC' as hour,
                   p.price_area, avg(p.price_dkk) as price_dkk
              from power.prices p
             where p.time_dk >= ${start} and p.time_dk < ${end}
             group by 1, 2
            having sum(p.resolution_minutes) = 60) h
     cross join lateral (${householdTariffsAt(sql`h.hour`)}) t
    on conflict (time_dk, price_area) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Gives every stored hour the household's tariffs now in force at it, where they differ from
 * what it holds (charges changed, published late or corrected, or another grid company): the
 * grid tariff (DKK/MWh, null while none covers the hour), Energinet's three and the others.
 * Returns the rows changed.
 */
export async function applyHouseholdTariffs(db: Db): Promise<number> {
  const result = await sql`
    update power.elprices e
       set tariff_dkk = c.grid * 1000, total_dkk = e.price_dkk + c.grid * 1000,
           transmission_dkk_kwh = c.transmission, system_dkk_kwh = c.system,
           electricity_tax_dkk_kwh = c.electricity_tax, other_tariffs_dkk_kwh = c.other
      from (select h.time_dk, t.*
              from (select distinct time_dk from power.elprices) h
             cross join lateral (${householdTariffsAt(sql`h.time_dk`)}) t) c
     where c.time_dk = e.time_dk
       and (e.tariff_dkk is distinct from c.grid * 1000
            or e.transmission_dkk_kwh is distinct from c.transmission
            or e.system_dkk_kwh is distinct from c.system
            or e.electricity_tax_dkk_kwh is distinct from c.electricity_tax
            or e.other_tariffs_dkk_kwh is distinct from c.other)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export type ElpriceRow = Omit<
  Selectable<ElpricesTable>,
  | 'transmission_dkk_kwh'
  | 'system_dkk_kwh'
  | 'electricity_tax_dkk_kwh'
  | 'other_tariffs_dkk_kwh'
  | 'charges_sum_dkk_kwh'
>;

export async function elpricesBetween(db: Db, start: Date, end: Date): Promise<ElpriceRow[]> {
  return db
    .selectFrom('power.elprices')
    .select(['time_dk', 'price_area', 'price_dkk', 'tariff_dkk', 'total_dkk'])
    .where('time_dk', '>=', start)
    .where('time_dk', '<', end)
    .orderBy('time_dk')
    .orderBy('price_area')
    .execute();
}

export type DayAheadPriceRow = Omit<Selectable<PricesTable>, 'fetched_at'>;

export async function pricesBetween(
  db: Db,
  start: Date,
  end: Date,
  area: string | undefined,
): Promise<DayAheadPriceRow[]> {
  let q = db
    .selectFrom('power.prices')
    .select(['time_dk', 'price_area', 'resolution_minutes', 'price_dkk', 'price_eur'])
    .where('time_dk', '>=', start)
    .where('time_dk', '<', end);
  if (area) q = q.where('price_area', '=', area);
  return q.orderBy('time_dk').orderBy('price_area').execute();
}

// ── what the other features read ───────────────────────────────────────────

export interface ConsumerHourRow {
  time_dk: Date;
  /** 60 for an hour, 15 for a quarter hour */
  minutes?: number;
  /** DKK/MWh, the exact mean of the hour's quarters */
  price_dkk: string;
  /** DKK/MWh */
  tariff_dkk: string | null;
  transmission_dkk_kwh: string | null;
  system_dkk_kwh: string | null;
  electricity_tax_dkk_kwh: string | null;
  other_tariffs_dkk_kwh?: string | null;
}

/** The stored hours of one area in [start, end), with every part of their price. */
export async function consumerHours(
  db: Db,
  start: Date,
  end: Date,
  area: string,
): Promise<ConsumerHourRow[]> {
  return db
    .selectFrom('power.elprices')
    .select([
      'time_dk',
      'price_dkk',
      'tariff_dkk',
      'transmission_dkk_kwh',
      'system_dkk_kwh',
      'electricity_tax_dkk_kwh',
      'other_tariffs_dkk_kwh',
    ])
    .where('time_dk', '>=', start)
    .where('time_dk', '<', end)
    .where('price_area', '=', area)
    .orderBy('time_dk')
    .execute();
}

/**
 * The stored day-ahead periods of one area in [start, end) beside the tariffs of their hour: a
 * quarter hour (from 2025-10-01) with its own price, an hourly row (before) with the hour's.
 */
export async function consumerQuarters(
  db: Db,
  start: Date,
  end: Date,
  area: string,
): Promise<(ConsumerHourRow & { minutes: number })[]> {
  const result = await sql<ConsumerHourRow & { minutes: number }>`
    select p.time_dk, p.resolution_minutes as minutes, p.price_dkk, e.tariff_dkk, e.transmission_dkk_kwh,
           e.system_dkk_kwh, e.electricity_tax_dkk_kwh, e.other_tariffs_dkk_kwh
      from power.prices p
      left join power.elprices e
        on e.time_dk = date_trunc('hour', p.time_dk at time zone 'UTC') at time zone 'UTC'
       and e.price_area = p.price_area
     where p.time_dk >= ${start} and p.time_dk < ${end} and p.price_area = ${area}
     order by p.time_dk`.execute(db);
  return result.rows;
}

/**
 * The stored hours of one area, as a relation for a statement to join on `time_dk` (the hour's
 * start): the hour's mean spot price (DKK/MWh) and the sum of its charges before markup and VAT
 * (DKK/kWh, null while a part is missing).
 */
export function hourPrices(area: string) {
  return sql`
    select time_dk, price_dkk, charges_sum_dkk_kwh
      from power.elprices
     where price_area = ${area}`;
}

/** The stored quarter hours of one area, as a relation to join on `time_dk`: each quarter's own spot price, DKK/MWh. */
export function quarterPrices(area: string) {
  return sql`
    select time_dk, price_dkk
      from power.prices
     where price_area = ${area} and resolution_minutes = 15`;
}
