import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { SpotPrice, TariffRecord } from '../../providers/energidataservice.js';
import type { ElpricesTable, PricesTable } from './tables.js';

/** An existing (time_dk, price_area) pair is left untouched. Returns the rows inserted. */
export async function insertPrices(db: Db, rows: SpotPrice[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db
    .insertInto('power.prices')
    .values(
      rows.map((r) => ({
        time_dk: r.timeUtc,
        price_area: r.area,
        resolution_minutes: r.minutes,
        price_dkk: r.priceDkk,
        price_eur: r.priceEur,
      })),
    )
    .onConflict((oc) => oc.columns(['time_dk', 'price_area']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Derives the hourly rows of [start, end) from the hours whose periods are all stored (four
 * quarters or one hourly row): the exact numeric mean, plus the grid company's tariff and
 * Energinet's charges of that wall-clock hour, valid at that hour. Existing hourly rows are
 * left untouched.
 */
export async function deriveElprices(
  db: Db,
  start: Date,
  end: Date,
  gln: string,
  energinetGln: string,
): Promise<number> {
  const result = await sql`
    insert into power.elprices (time_dk, price_area, price_dkk, tariff_dkk, total_dkk,
                                transmission_dkk_kwh, system_dkk_kwh, electricity_tax_dkk_kwh)
    select h.hour, h.price_area, h.price_dkk, t.tariff_dkk, h.price_dkk + t.tariff_dkk,
           c.transmission, c.system, c.electricity_tax
      from (select date_trunc('hour', p.time_dk at time zone 'UTC') at time zone 'UTC' as hour,
                   p.price_area, avg(p.price_dkk) as price_dkk
              from power.prices p
             where p.time_dk >= ${start} and p.time_dk < ${end}
             group by 1, 2
            having sum(p.resolution_minutes) = 60) h
      left join lateral (${tariffAt(sql`h.hour`, gln)}) t on true
      cross join lateral (${chargesAt(sql`h.hour`, energinetGln)}) c
    on conflict (time_dk, price_area) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Energinet's three charges in DKK/kWh valid at an instant, by its Danish wall-clock hour: the
 * period starting last that covers it; null where none does.
 */
function chargesAt(instant: ReturnType<typeof sql>, gln: string) {
  const local = sql`(${instant} at time zone 'Europe/Copenhagen')`;
  const one = (charge: string) => sql`(
    select cp.dkk_per_kwh[extract(hour from ${local})::int + 1]
      from power.charge_periods cp
     where cp.owner_gln = ${gln} and cp.charge = ${charge}
       and cp.valid_from <= ${local}
       and (cp.valid_to is null or ${local} < cp.valid_to)
     order by cp.valid_from desc
     limit 1)`;
  return sql`select ${one('transmission')} as transmission, ${one('system')} as system,
                    ${one('electricity_tax')} as electricity_tax`;
}

/** The tariff in DKK/MWh (øre/kWh × 10) of the period valid at an instant, by its Danish wall-clock hour. */
function tariffAt(instant: ReturnType<typeof sql>, gln: string) {
  const local = sql`(${instant} at time zone 'Europe/Copenhagen')`;
  return sql`
    select tp.ore_per_kwh[extract(hour from ${local})::int + 1] * 10 as tariff_dkk
      from power.tariff_periods tp
     where tp.grid_company_gln = ${gln}
       and tp.valid_from <= ${local}
       and (tp.valid_to is null or ${local} < tp.valid_to)
     order by tp.valid_from desc
     limit 1`;
}

export type ElpriceRow = Omit<
  Selectable<ElpricesTable>,
  'transmission_dkk_kwh' | 'system_dkk_kwh' | 'electricity_tax_dkk_kwh' | 'charges_sum_dkk_kwh'
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

/** Before a refresh writes the grid company's periods anew. */
export async function deleteTariffPeriods(db: Db, gln: string, source: string): Promise<void> {
  await db
    .deleteFrom('power.tariff_periods')
    .where('grid_company_gln', '=', gln)
    .where('source', '=', source)
    .execute();
}

/** A refreshed period replaces the stored one that starts at the same time. */
export async function upsertTariffPeriod(db: Db, p: TariffRecord & { source: string }): Promise<void> {
  await sql`
    insert into power.tariff_periods (grid_company_gln, charge_type_code, valid_from, valid_to, ore_per_kwh, source)
    values (${p.gln}, ${p.chargeTypeCode}, ${p.validFrom}::timestamp, ${p.validTo}::timestamp,
            ${`{${p.hourly.join(',')}}`}::numeric[], ${p.source})
    on conflict (grid_company_gln, valid_from) do update
       set charge_type_code = excluded.charge_type_code, valid_to = excluded.valid_to,
           ore_per_kwh = excluded.ore_per_kwh, source = excluded.source, updated_at = now()`.execute(db);
}

/** Hourly rows written while no tariff period covered them get one now; others keep theirs. */
export async function fillMissingTariffs(db: Db, gln: string): Promise<number> {
  const result = await sql`
    update power.elprices e
       set tariff_dkk = t.tariff_dkk, total_dkk = e.price_dkk + t.tariff_dkk
      from power.elprices e2
      cross join lateral (${tariffAt(sql`e2.time_dk`, gln)}) t
     where e.tariff_dkk is null and e2.time_dk = e.time_dk and e2.price_area = e.price_area`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Before a refresh writes Energinet's charge periods anew. */
export async function deleteChargePeriods(db: Db, gln: string, source: string): Promise<void> {
  await db
    .deleteFrom('power.charge_periods')
    .where('owner_gln', '=', gln)
    .where('source', '=', source)
    .execute();
}

/** A refreshed charge period replaces the stored one of the same charge that starts at the same time. */
export async function upsertChargePeriod(
  db: Db,
  p: {
    gln: string;
    charge: string;
    code: string;
    validFrom: string;
    validTo: string | null;
    hourly: string[];
    source: string;
  },
): Promise<void> {
  await sql`
    insert into power.charge_periods (owner_gln, charge, charge_type_code, valid_from, valid_to, dkk_per_kwh, source)
    values (${p.gln}, ${p.charge}, ${p.code}, ${p.validFrom}::timestamp, ${p.validTo}::timestamp,
            ${`{${p.hourly.join(',')}}`}::numeric[], ${p.source})
    on conflict (owner_gln, charge, valid_from) do update
       set charge_type_code = excluded.charge_type_code, valid_to = excluded.valid_to,
           dkk_per_kwh = excluded.dkk_per_kwh, source = excluded.source, updated_at = now()`.execute(db);
}

/**
 * Gives every stored hour the charges now valid at it, where they differ from what it holds (a
 * period published late, or corrected). Returns the rows changed.
 */
export async function applyCharges(db: Db, gln: string): Promise<number> {
  const result = await sql`
    update power.elprices e
       set transmission_dkk_kwh = c.transmission, system_dkk_kwh = c.system,
           electricity_tax_dkk_kwh = c.electricity_tax
      from (select e2.time_dk, e2.price_area, ch.*
              from power.elprices e2
             cross join lateral (${chargesAt(sql`e2.time_dk`, gln)}) ch) c
     where c.time_dk = e.time_dk and c.price_area = e.price_area
       and (e.transmission_dkk_kwh is distinct from c.transmission
            or e.system_dkk_kwh is distinct from c.system
            or e.electricity_tax_dkk_kwh is distinct from c.electricity_tax)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
