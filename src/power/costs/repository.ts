import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { meteredIntervals, type CostParams } from './intervals.js';

export type { CostParams } from './intervals.js';

export interface CostDayRow {
  date: string;
  consumption_kwh: string;
  cost_dkk: string;
  production_kwh: string;
  sold_value_dkk: string;
  hours: string;
  hours_priced: string;
  self_consumed_kwh: string | null;
  self_consumption_value_dkk: string | null;
  /** minutes of the day with a consumption reading: the whole day when it equals the day's length */
  metered_minutes: string;
  /** a metered interval of the day has no stored price (the day was never fetched) */
  unpriced: boolean;
}

/**
 * Per Danish day: sums over its metered hours, money rounded to øre at the day (half away from
 * zero). VAT is the same in every hour, so Σ kWh × x × (1 + VAT) is summed as
 * (1 + VAT) × Σ kWh × x: exactly equal, with less arithmetic per hour.
 */
export async function costDays(db: Db, p: CostParams): Promise<CostDayRow[]> {
  const vat = sql`(1 + ${p.vatRate}::numeric)`;
  const result = await sql<CostDayRow>`
    select d.date_dk::text as date, d.consumption_kwh, round(${vat} * d.cx, 2) as cost_dkk,
           d.production_kwh, round(d.sold * 0.001, 2) as sold_value_dkk, d.hours, d.hours_priced,
           d.self_consumed_kwh,
           case when d.solar_hours > 0 then round(${vat} * d.sx, 2) end as self_consumption_value_dkk,
           d.metered_minutes, d.unpriced
      from (select h.date_dk, bool_or(h.unpriced and h.metered) as unpriced,
                   coalesce(sum(h.consumption_kwh), 0) as consumption_kwh,
                   coalesce(sum(h.consumption_kwh * h.x), 0) as cx,
                   coalesce(sum(h.production_kwh), 0) as production_kwh,
                   coalesce(sum(h.production_kwh * h.price_dkk), 0) as sold,
                   count(*) filter (where h.metered) as hours,
                   count(*) filter (where h.metered and h.x is not null) as hours_priced,
                   sum(h.self_consumed_kwh) as self_consumed_kwh,
                   coalesce(sum(h.self_consumed_kwh * h.x), 0) as sx,
                   count(h.solar_kwh) as solar_hours,
                   coalesce(sum(h.minutes) filter (where h.consumption_kwh is not null), 0) as metered_minutes
              from (${meteredIntervals(p)}) h
             group by 1) d
     order by 1`.execute(db);
  return result.rows;
}

export interface CostHourRow {
  start_at: Date;
  minutes: number;
  consumption_kwh: string | null;
  production_kwh: string | null;
  solar_kwh: string | null;
  spot: string | null;
  total: string | null;
  self_consumed_kwh: string | null;
}

/** The metered hours themselves, for `resolution=hour`. */
export async function costHours(db: Db, p: CostParams): Promise<CostHourRow[]> {
  const result = await sql<CostHourRow>`
    select h.start_at, h.minutes, h.consumption_kwh, h.production_kwh, h.solar_kwh, h.price_dkk * 0.001 as spot,
           h.x * (1 + ${p.vatRate}::numeric) as total, h.self_consumed_kwh
      from (${meteredIntervals(p)}) h
     order by h.start_at`.execute(db);
  return result.rows;
}
