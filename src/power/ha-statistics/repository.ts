import { sql } from 'kysely';
import { writeInChunks } from '../../db/chunks.js';
import type { Db } from '../../db/schema.js';
import { meteredIntervals } from '../costs/intervals.js';
import { STATISTICS, type HourRow, type StatisticKey } from './statistics.js';

/** The household's pricing, as /api/costs and /api/bill take it from the configuration. */
export interface StatisticsPricing {
  area: string;
  /** DKK/kWh excl. VAT, exact decimal text */
  markup: string;
  vatRate: string;
}

/** Every metered interval there is: readings begin long after the first and end before the last. */
const ALL = { start: new Date('1970-01-01T00:00:00Z'), end: new Date('9999-01-01T00:00:00Z') };

const idOf = (key: StatisticKey) => STATISTICS.find((s) => s.key === key)!.id;

export interface PendingHour {
  statistic_id: string;
  start_at: Date;
  /** exact decimal text */
  state: string;
  /** the sum Home Assistant holds at the written hour before this statistic's first pending one; null: none */
  sum_before: string | null;
}

/**
 * The hours to write, per statistic in order from the first whose value is not what Home
 * Assistant holds (never written, or changed since) through the last; empty when every hour is
 * as written. Each UTC hour sums its intervals as /api/costs prices them (`meteredIntervals`):
 * consumption and production in kWh; the cost Σ kWh × x × (1 + VAT), every interval at its own
 * spot and the charges of its hour, up to the first metered hour with an interval not priced
 * (the cost stops there, never written as 0); the production's value Σ kWh × spot, up to the
 * first hour with a production interval without a spot price. An hour written before and not
 * found now (a reading or price gone) is kept as Home Assistant holds it, in the sums after it,
 * and stops nothing.
 */
export async function pendingHours(db: Db, p: StatisticsPricing): Promise<PendingHour[]> {
  const intervals = meteredIntervals({ ...ALL, ...p });
  const result = await sql<PendingHour>`
    with i as materialized (${intervals}),
    h as (
      select date_trunc('hour', start_at at time zone 'UTC') at time zone 'UTC' as hour,
             sum(consumption_kwh) as consumption, sum(production_kwh) as production,
             (1 + ${p.vatRate}::numeric) * sum(consumption_kwh * x) as cost,
             bool_and(x is not null) filter (where consumption_kwh is not null) as cost_priced,
             sum(production_kwh * price_dkk) * 0.001 as value,
             bool_and(price_dkk is not null) filter (where production_kwh is not null) as value_priced
        from i group by 1
    ),
    desired as (
      select ${idOf('consumption')}::text as statistic_id, hour, consumption as state
        from h where consumption is not null
      union all
      select ${idOf('production')}, hour, production from h where production is not null
      union all
      select ${idOf('cost')}, hour, cost from h
       where consumption is not null
         and hour < coalesce((select min(hour) from h where not cost_priced and hour not in
                                (select start_at from power.ha_statistics where statistic_id = ${idOf('cost')})),
                             'infinity')
      union all
      select ${idOf('value')}, hour, value from h
       where production is not null
         and hour < coalesce((select min(hour) from h where not value_priced and hour not in
                                (select start_at from power.ha_statistics where statistic_id = ${idOf('value')})),
                             'infinity')
    ),
    t as (
      select coalesce(d.statistic_id, w.statistic_id) as statistic_id, coalesce(d.hour, w.start_at) as hour,
             coalesce(d.state, w.state) as state, w.state as written
        from desired d
        full join power.ha_statistics w on w.statistic_id = d.statistic_id and w.start_at = d.hour
    ),
    f as (
      select statistic_id, min(hour) as first from t
       where written is null or state <> written group by statistic_id
    ),
    fb as (
      select f.statistic_id, f.first,
             (select w.sum from power.ha_statistics w
               where w.statistic_id = f.statistic_id and w.start_at < f.first
               order by w.start_at desc limit 1) as sum_before
        from f
    )
    select t.statistic_id, t.hour as start_at, t.state::text as state, fb.sum_before::text as sum_before
      from fb join t on t.statistic_id = fb.statistic_id and t.hour >= fb.first
     order by t.statistic_id, t.hour`.execute(db);
  return result.rows;
}

/**
 * The Danish days from `from` on with a metered interval whose hour has no stored price (a day
 * whose prices were never fetched), which /api/costs would fetch before answering.
 */
export async function unpricedDays(db: Db, p: StatisticsPricing, from: Date): Promise<string[]> {
  const result = await sql<{ date: string }>`
    select distinct i.date_dk::text as date
      from (${meteredIntervals({ start: from, end: ALL.end, ...p })}) i
     where i.unpriced and i.metered
     order by 1`.execute(db);
  return result.rows.map((r) => r.date);
}

/**
 * Fresh planner statistics for the tables the pending hours read: the embedded database has no
 * autovacuum, and without them its planner loops over every stored hour for each interval (a
 * month took 2 s instead of 20 ms).
 */
export async function analyzeStatistics(db: Db): Promise<void> {
  await sql`analyze power.elprices, power.prices, power.ha_statistics`.execute(db);
}

/** Hours Home Assistant took (it answered the import): inserted, or overwritten as it overwrites them. */
export async function recordWritten(db: Db, statisticId: string, rows: HourRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => ({
    statistic_id: statisticId,
    start_at: r.start,
    state: r.state,
    sum: r.sum,
  }));
  await writeInChunks(db, values, (trx, chunk) =>
    trx
      .insertInto('power.ha_statistics')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['statistic_id', 'start_at']).doUpdateSet((eb) => ({
          state: eb.ref('excluded.state'),
          sum: eb.ref('excluded.sum'),
          written_at: sql<Date>`now()`,
        })),
      )
      .execute(),
  );
}

export interface WrittenSummary {
  statistic_id: string;
  hours: string;
  last_start: Date;
  last_sum: string;
}

/** Per statistic written: how many hours, the last one and its sum. */
export async function writtenSummary(db: Db): Promise<WrittenSummary[]> {
  const result = await sql<WrittenSummary>`
    select distinct on (statistic_id) statistic_id, count(*) over (partition by statistic_id)::text as hours,
           start_at as last_start, sum::text as last_sum
      from power.ha_statistics
     order by statistic_id, start_at desc`.execute(db);
  return result.rows;
}
