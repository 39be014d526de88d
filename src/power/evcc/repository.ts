import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

export interface FeedInHourRow {
  hour: Date;
  /** DKK/kWh: the household's production tariffs of the hour summed, 0 without any */
  dkk_kwh: string;
}

/**
 * For every hour of [start, end) (whole UTC hours, which Danish hours are), the tariffs the
 * household pays on the energy it supplies to the grid (the production point's tariffs, as its
 * meter lists them) at that Danish wall-clock hour, summed. Both 02:00 hours of the autumn change
 * read the 02 price.
 */
export async function feedInTariffs(db: Db, start: Date, end: Date): Promise<FeedInHourRow[]> {
  const result = await sql<FeedInHourRow>`
    select h.hour, coalesce(sum(hc.prices[extract(hour from h.hour at time zone 'Europe/Copenhagen')::int + 1]), 0)::text as dkk_kwh
      from generate_series(${start}::timestamptz, ${end}::timestamptz - interval '1 hour', interval '1 hour') as h(hour)
      left join power.household_charges hc
        on hc.kind = 'tariff' and hc.applies_to = 'production'
       and hc.during @> (h.hour at time zone 'Europe/Copenhagen')
     group by h.hour
     order by h.hour`.execute(db);
  return result.rows;
}
