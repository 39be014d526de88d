import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

export interface ConsumerHourRow {
  time_dk: Date;
  /** DKK/MWh, the exact mean of the hour's quarters */
  price_dkk: string;
  /** DKK/MWh */
  tariff_dkk: string | null;
  transmission_dkk_kwh: string | null;
  system_dkk_kwh: string | null;
  electricity_tax_dkk_kwh: string | null;
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
    ])
    .where('time_dk', '>=', start)
    .where('time_dk', '<', end)
    .where('price_area', '=', area)
    .orderBy('time_dk')
    .execute();
}

export interface CostParams {
  start: Date;
  end: Date;
  area: string;
  /** DKK/kWh excl. VAT, exact decimal text */
  markup: string;
  vatRate: string;
}

/**
 * Every metered hour of [start, end) beside its prices, DKK/kWh: consumption (D07, all points),
 * production to the grid (D06), the solar inverter's energy (as power.metered_hours keeps them),
 * the spot price in DKK/MWh, and `x`, the sum of spot, tariffs, charges and markup in DKK/kWh
 * before VAT (null when a part is missing). The hour's self-consumption is the solar energy less
 * what went to the grid, never below zero.
 */
function meteredHours(p: CostParams) {
  return sql`
    select m.start_at, m.date_dk, m.consumption_kwh, m.production_kwh, m.solar_kwh, e.price_dkk,
           e.charges_sum_dkk_kwh + ${p.markup}::numeric as x,
           case when m.solar_kwh is not null
                then greatest(m.solar_kwh - coalesce(m.production_kwh, 0), 0) end as self_consumed_kwh,
           (m.consumption_kwh is not null or m.production_kwh is not null) as metered
      from power.metered_hours m
      left join power.elprices e on e.time_dk = m.start_at and e.price_area = ${p.area}
     where m.start_at >= ${p.start} and m.start_at < ${p.end}`;
}

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
           case when d.solar_hours > 0 then round(${vat} * d.sx, 2) end as self_consumption_value_dkk
      from (select h.date_dk,
                   coalesce(sum(h.consumption_kwh), 0) as consumption_kwh,
                   coalesce(sum(h.consumption_kwh * h.x), 0) as cx,
                   coalesce(sum(h.production_kwh), 0) as production_kwh,
                   coalesce(sum(h.production_kwh * h.price_dkk), 0) as sold,
                   count(*) filter (where h.metered) as hours,
                   count(*) filter (where h.metered and h.x is not null) as hours_priced,
                   sum(h.self_consumed_kwh) as self_consumed_kwh,
                   coalesce(sum(h.self_consumed_kwh * h.x), 0) as sx,
                   count(h.solar_kwh) as solar_hours
              from (${meteredHours(p)}) h
             group by 1) d
     order by 1`.execute(db);
  return result.rows;
}

export interface CostHourRow {
  start_at: Date;
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
    select h.start_at, h.consumption_kwh, h.production_kwh, h.solar_kwh, h.price_dkk * 0.001 as spot,
           h.x * (1 + ${p.vatRate}::numeric) as total, h.self_consumed_kwh
      from (${meteredHours(p)}) h
     order by h.start_at`.execute(db);
  return result.rows;
}
