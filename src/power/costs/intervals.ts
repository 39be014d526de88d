import { sql } from 'kysely';
import { meteredHoursBetween } from '../metering/repository.js';
import { hourPrices, quarterPrices } from '../prices/repository.js';

export interface CostParams {
  start: Date;
  end: Date;
  area: string;
  /** DKK/kWh excl. VAT, exact decimal text */
  markup: string;
  vatRate: string;
}

/**
 * Every metered interval (an hour, or a quarter hour of a quarter-hour meter) of [start, end)
 * beside its prices: consumption (D07, all points), production to the grid (D06), the solar
 * inverter's energy (as the metered hours keep them), the interval's own spot price in DKK/MWh
 * (a quarter's from 2025-10-01, else its hour's), and `x`, that spot plus the tariffs of its hour
 * and the markup in DKK/kWh before VAT (null when a part is missing). Self-consumption is the solar
 * energy less what went to the grid, never below zero. `unpriced`: no price of its hour is stored
 * (a day never fetched), unlike a stored hour missing a part.
 */
export function meteredIntervals(p: CostParams) {
  return sql`
    select m.start_at, m.date_dk, m.minutes, m.consumption_kwh, m.production_kwh, m.solar_kwh, s.spot as price_dkk,
           e.charges_sum_dkk_kwh + (s.spot - e.price_dkk) * 0.001 + ${p.markup}::numeric as x,
           case when m.solar_kwh is not null
                then greatest(m.solar_kwh - coalesce(m.production_kwh, 0), 0) end as self_consumed_kwh,
           (m.consumption_kwh is not null or m.production_kwh is not null) as metered,
           e.time_dk is null as unpriced
      from (${meteredHoursBetween(p.start, p.end)}) m
      left join (${hourPrices(p.area)}) e
        on e.time_dk = date_trunc('hour', m.start_at at time zone 'UTC') at time zone 'UTC'
      left join (${quarterPrices(p.area)}) q
        on m.minutes = 15 and q.time_dk = m.start_at
      cross join lateral (select coalesce(q.price_dkk, e.price_dkk) as spot) s`;
}
