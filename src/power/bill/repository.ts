import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { meteredIntervals, type CostParams } from '../costs/intervals.js';

/** The month's consumption: how much, how many minutes of it were metered, and how much of it is priced. */
export interface BillUsageRow {
  consumption_kwh: string;
  priced_kwh: string;
  intervals: string;
  intervals_priced: string;
  metered_minutes: string;
  /** Σ priced kWh × the interval's spot, DKK, exact */
  spot_dkk: string;
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
 * Sums over the consumption intervals of [start, end) whose price is known (every part of the
 * hour stored): kWh, kWh × the interval's own spot price.
 */
export async function billUsage(db: Db, p: CostParams): Promise<BillUsageRow> {
  const result = await sql<BillUsageRow>`
    select coalesce(sum(h.consumption_kwh), 0) as consumption_kwh,
           coalesce(sum(h.consumption_kwh) filter (where h.x is not null), 0) as priced_kwh,
           count(*) as intervals, count(*) filter (where h.x is not null) as intervals_priced,
           coalesce(sum(h.minutes), 0) as metered_minutes,
           coalesce(sum(h.consumption_kwh * h.price_dkk) filter (where h.x is not null), 0) * 0.001 as spot_dkk
      from (${meteredIntervals(p)}) h
     where h.consumption_kwh is not null`.execute(db);
  return result.rows[0]!;
}

/**
 * One row per consumption tariff of the household: Σ priced kWh × the tariff's price at the
 * interval's Danish wall-clock hour, exact.
 */
export async function billTariffs(db: Db, p: CostParams): Promise<BillTariffRow[]> {
  const result = await sql<BillTariffRow>`
    select hc.role, hc.name, hc.owner_gln, max(hc.owner) as owner, sum(h.consumption_kwh) as kwh,
           sum(h.consumption_kwh * hc.prices[extract(hour from h.local)::int + 1]) as amount_dkk
      from (select i.*, i.start_at at time zone 'Europe/Copenhagen' as local
              from (${meteredIntervals(p)}) i
             where i.consumption_kwh is not null and i.x is not null) h
      join power.household_charges hc
        on hc.kind = 'tariff' and hc.applies_to = 'consumption' and hc.during @> h.local
     group by hc.role, hc.name, hc.owner_gln
     order by min(case hc.role when 'grid' then 1 when 'transmission' then 2 when 'system' then 3
                               when 'other' then 4 else 5 end), hc.name`.execute(db);
  return result.rows;
}

export interface BillSubscriptionRow {
  name: string;
  kind: string;
  owner_gln: string;
  owner: string | null;
  resolution: string;
  price_dkk: string;
  /** Danish days of the month the period covers */
  days: number;
}

/** The household's subscriptions in force some day of the Danish month [first, next): each period with its days in it. */
export async function billSubscriptions(db: Db, first: string, next: string): Promise<BillSubscriptionRow[]> {
  const result = await sql<BillSubscriptionRow>`
    select name, kind, owner_gln, owner, resolution, prices[1]::text as price_dkk,
           (least(coalesce(valid_to, ${next}::timestamp), ${next}::timestamp)::date
             - greatest(valid_from, ${first}::timestamp)::date) as days
      from power.household_charges
     where kind = 'subscription' and applies_to = 'consumption'
       and during && tsrange(${first}::timestamp, ${next}::timestamp)
     order by owner_gln, name, valid_from`.execute(db);
  return result.rows.map((r) => ({ ...r, days: Number(r.days) }));
}
