import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { Co2Row } from '../../providers/energidataservice-co2.js';

const asJson = (rows: Co2Row[]) =>
  JSON.stringify(rows.map((r) => ({ t: r.timeUtc.toISOString(), a: r.area, g: r.gKwh })));

/**
 * Stores a prognosis as issued at `issuedAt`: only the instants whose value differs from the
 * latest stored issue (or that have none), so an unchanged prognosis adds no rows. Returns the
 * rows added.
 */
export async function insertForecast(db: Db, issuedAt: Date, rows: Co2Row[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`
    insert into power.co2_forecasts (price_area, time_utc, issued_at, g_kwh)
    select v.a, v.t, ${issuedAt}::timestamptz, v.g
      from json_to_recordset(${asJson(rows)}::json) as v(t timestamptz, a text, g numeric)
     where v.g is distinct from (select f.g_kwh from power.co2_forecasts f
                                  where f.price_area = v.a and f.time_utc = v.t
                                  order by f.issued_at desc limit 1)
    on conflict do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Stores realized values; a stored value the provider has since corrected is replaced. Returns the rows written. */
export async function upsertRealized(db: Db, fetchedAt: Date, rows: Co2Row[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`
    insert into power.co2_realized (price_area, time_utc, g_kwh, fetched_at)
    select v.a, v.t, v.g, ${fetchedAt}::timestamptz
      from json_to_recordset(${asJson(rows)}::json) as v(t timestamptz, a text, g numeric)
    on conflict (price_area, time_utc) do update set g_kwh = excluded.g_kwh, fetched_at = excluded.fetched_at
     where power.co2_realized.g_kwh is distinct from excluded.g_kwh`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The instant after the last realized value stored for both areas alike (the earlier of the two), or null. */
export async function realizedThrough(db: Db): Promise<Date | null> {
  const result = await sql<{ through: Date | null }>`
    select min(last) + interval '5 minutes' as through
      from (select max(time_utc) as last from power.co2_realized group by price_area) a
    having count(*) = 2`.execute(db);
  return result.rows[0]?.through ?? null;
}

/** The end of the last forecast instant stored, over both areas, or null. */
export async function forecastThrough(db: Db): Promise<Date | null> {
  const result = await sql<{ through: Date | null }>`
    select max(time_utc) + interval '5 minutes' as through from power.co2_forecasts`.execute(db);
  return result.rows[0]?.through ?? null;
}

/** How many realized values one area has in [start, end). */
export async function countRealized(db: Db, area: string, start: Date, end: Date): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from power.co2_realized
     where price_area = ${area} and time_utc >= ${start} and time_utc < ${end}`.execute(db);
  return result.rows[0]?.n ?? 0;
}

export interface Co2IntervalRow {
  start_at: Date;
  /** the sum of the interval's 5-minute values, g/kWh, exact */
  sum_g: string;
  /** how many 5-minute values it has */
  values: number;
  /** every one of them realized */
  realized: boolean;
}

/**
 * The intervals of `minutes` (15 or 60; Danish hours are whole UTC hours) of one area in
 * [start, end), each over its 5-minute values: the realized value where there is one, else the
 * latest issued prognosis of that instant.
 */
export async function intervals(
  db: Db,
  area: string,
  start: Date,
  end: Date,
  minutes: 15 | 60,
): Promise<Co2IntervalRow[]> {
  const result = await sql<Co2IntervalRow>`
    with r as (select time_utc, g_kwh from power.co2_realized
                where price_area = ${area} and time_utc >= ${start} and time_utc < ${end}),
         f as (select distinct on (time_utc) time_utc, g_kwh from power.co2_forecasts
                where price_area = ${area} and time_utc >= ${start} and time_utc < ${end}
                order by time_utc, issued_at desc),
         v as (select coalesce(r.time_utc, f.time_utc) as t, coalesce(r.g_kwh, f.g_kwh) as g,
                      r.time_utc is not null as realized
                 from r full join f on f.time_utc = r.time_utc)
    select date_bin(make_interval(mins => ${minutes}::int), t, timestamptz '2000-01-01 00:00:00+00') as start_at,
           sum(g)::text as sum_g, count(*)::int as values, bool_and(realized) as realized
      from v
     group by 1
     order by 1`.execute(db);
  return result.rows;
}
