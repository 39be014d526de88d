import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { meteredIntervals, type CostParams } from '../costs/intervals.js';
import { consumptionTariffs } from '../household/repository.js';

/** The month's consumption: how much, how many minutes of it were metered, and how much of it is priced. */
export interface BillUsage {
  consumption_kwh: string;
  priced_kwh: string;
  intervals: string;
  intervals_priced: string;
  /** Σ priced kWh × the interval's spot, DKK, exact */
  spot_dkk: string;
  /** Danish days with a reading whose hour has no stored price (never fetched) */
  unpriced_days: string[] | null;
  /** Minutes of consumption readings per Danish day that has any */
  day_minutes: Record<string, number>;
}

export interface BillTariffRow {
  role: string;
  name: string;
  owner_gln: string;
  owner: string | null;
  kwh: string;
  amount_dkk: string;
}

/**
 * In one pass over the consumption intervals of [start, end): their sums (only intervals whose
 * price is known are priced), and per consumption tariff of the household Σ kWh × its price at
 * the interval's Danish wall-clock hour. The intervals are first summed per wall-clock hour, so
 * the tariffs meet at most 745 rows a month, not every quarter. Amounts exact, as text.
 */
export async function billTotals(
  db: Db,
  p: CostParams,
): Promise<{ usage: BillUsage; tariffs: BillTariffRow[] }> {
  const result = await sql<{ usage: BillUsage; tariffs: BillTariffRow[] }>`
    with i as materialized (
      select h.start_at, h.date_dk, h.minutes, h.consumption_kwh as kwh, h.price_dkk, h.x, h.unpriced
        from (${meteredIntervals(p)}) h
       where h.consumption_kwh is not null
    ), hours as (
      select date_trunc('hour', start_at at time zone 'Europe/Copenhagen') as local, sum(kwh) as kwh
        from i where x is not null group by 1
    ), tariffs as (
      select hc.role, hc.name, hc.owner_gln, max(hc.owner) as owner, sum(h.kwh)::text as kwh,
             sum(h.kwh * hc.prices[extract(hour from h.local)::int + 1])::text as amount_dkk,
             min(array_position(array['grid', 'transmission', 'system', 'other', 'electricity_tax']::text[], hc.role)) as rank
        from hours h
        join (${consumptionTariffs()}) hc on hc.during @> h.local
       group by hc.role, hc.name, hc.owner_gln
    )
    select (select json_build_object(
              'consumption_kwh', coalesce(sum(kwh), 0)::text,
              'priced_kwh', coalesce(sum(kwh) filter (where x is not null), 0)::text,
              'intervals', count(*)::text,
              'intervals_priced', (count(*) filter (where x is not null))::text,
              'spot_dkk', (coalesce(sum(kwh * price_dkk) filter (where x is not null), 0) * 0.001)::text,
              'unpriced_days', array_agg(distinct date_dk::text) filter (where unpriced),
              'day_minutes', (select coalesce(json_object_agg(d, m), '{}'::json)
                                from (select date_dk::text as d, sum(minutes) as m from i group by 1) x))
              from i) as usage,
           (select coalesce(json_agg(json_build_object('role', role, 'name', name, 'owner_gln', owner_gln,
                                                       'owner', owner, 'kwh', kwh, 'amount_dkk', amount_dkk)
                                     order by rank, name), '[]'::json)
              from tariffs) as tariffs`.execute(db);
  return result.rows[0]!;
}
