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
 * production to the grid (D06), the solar inverter's energy, `spot`, and `total` (null when a
 * part is missing). The hour's self-consumption is the solar energy less what went to the grid,
 * never below zero.
 */
function meteredHours(p: CostParams) {
  return sql`
    with c as (select start_at, sum(quantity_kwh) as kwh from power.consumption
                where start_at >= ${p.start} and start_at < ${p.end} group by start_at),
         g as (select start_at, sum(quantity_kwh) as kwh from power.production
                where start_at >= ${p.start} and start_at < ${p.end} group by start_at),
         s as (select start_at, energy_kwh as kwh from power.solar
                where start_at >= ${p.start} and start_at < ${p.end}),
         m as (select coalesce(c.start_at, g.start_at, s.start_at) as start_at,
                      c.kwh as consumption_kwh, g.kwh as production_kwh, s.kwh as solar_kwh
                 from c full join g on g.start_at = c.start_at
                 full join s on s.start_at = coalesce(c.start_at, g.start_at))
    select m.*, e.price_dkk * 0.001 as spot,
           (e.price_dkk * 0.001 + e.tariff_dkk * 0.001 + e.transmission_dkk_kwh + e.system_dkk_kwh
              + e.electricity_tax_dkk_kwh + ${p.markup}::numeric) * (1 + ${p.vatRate}::numeric) as total,
           case when m.solar_kwh is not null
                then greatest(m.solar_kwh - coalesce(m.production_kwh, 0), 0) end as self_consumed_kwh,
           (m.consumption_kwh is not null or m.production_kwh is not null) as metered
      from m
      left join power.elprices e on e.time_dk = m.start_at and e.price_area = ${p.area}`;
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

/** Per Danish day: sums over its metered hours, money rounded to øre at the day (half away from zero). */
export async function costDays(db: Db, p: CostParams): Promise<CostDayRow[]> {
  const result = await sql<CostDayRow>`
    select to_char(h.start_at at time zone 'Europe/Copenhagen', 'YYYY-MM-DD') as date,
           coalesce(sum(h.consumption_kwh), 0) as consumption_kwh,
           round(coalesce(sum(h.consumption_kwh * h.total), 0), 2) as cost_dkk,
           coalesce(sum(h.production_kwh), 0) as production_kwh,
           round(coalesce(sum(h.production_kwh * h.spot), 0), 2) as sold_value_dkk,
           count(*) filter (where h.metered) as hours,
           count(*) filter (where h.metered and h.total is not null) as hours_priced,
           sum(h.self_consumed_kwh) as self_consumed_kwh,
           case when count(h.solar_kwh) > 0
                then round(coalesce(sum(h.self_consumed_kwh * h.total), 0), 2) end as self_consumption_value_dkk
      from (${meteredHours(p)}) h
     group by 1
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
    select h.start_at, h.consumption_kwh, h.production_kwh, h.solar_kwh, h.spot, h.total, h.self_consumed_kwh
      from (${meteredHours(p)}) h
     order by h.start_at`.execute(db);
  return result.rows;
}
