import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { HouseholdCharge } from './periods.js';
import type { HouseholdChargesTable } from './tables.js';

/** The household's charges are replaced whole at a refresh, in its transaction. */
export async function deleteHouseholdCharges(db: Db): Promise<void> {
  await db.deleteFrom('power.household_charges').execute();
}

/**
 * Drops configured charges of a grid company other than the configured one (none when null):
 * a changed or removed GRID_COMPANY_GLN never leaves another company's tariff in force.
 */
export async function deleteOtherConfiguredGrid(db: Db, gln: string | null): Promise<number> {
  let q = db
    .deleteFrom('power.household_charges')
    .where('source', '=', 'config')
    .where('role', 'in', ['grid', 'subscription', 'fee']);
  if (gln !== null) q = q.where('owner_gln', '<>', gln);
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether a refresh stored any charges (in an earlier run, too). */
export async function hasHouseholdCharges(db: Db): Promise<boolean> {
  const row = await db.selectFrom('power.household_charges').select('kind').limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function insertHouseholdCharges(db: Db, rows: HouseholdCharge[]): Promise<void> {
  const charges = rows.map((c) => ({
    kind: c.kind,
    role: c.role,
    applies_to: c.appliesTo,
    owner_gln: c.ownerGln,
    owner: c.owner,
    name: c.name,
    code: c.code,
    source: c.source,
    prices_from: c.pricesFrom,
    valid_from: c.validFrom,
    valid_to: c.validTo,
    resolution: c.resolution,
    prices: `{${c.prices.join(',')}}`,
  }));
  await writeInChunks(db, charges, (db, chunk) =>
    db.insertInto('power.household_charges').values(chunk).execute(),
  );
}

export type HouseholdChargeRow = Omit<Selectable<HouseholdChargesTable>, 'during' | 'prices'> & {
  valid_from: string;
  valid_to: string | null;
  prices: string[];
};

/** The charges in force at some time of the Danish wall-clock range [from, to), by kind and name. */
export async function householdChargesBetween(
  db: Db,
  from: string,
  to: string,
): Promise<HouseholdChargeRow[]> {
  const result = await sql<HouseholdChargeRow>`
    select kind, role, applies_to, owner_gln, owner, name, code, source, prices_from,
           to_char(valid_from, 'YYYY-MM-DD"T"HH24:MI:SS') as valid_from,
           to_char(valid_to, 'YYYY-MM-DD"T"HH24:MI:SS') as valid_to, resolution, prices::text[] as prices
      from power.household_charges
     where during && tsrange(${from}::timestamp, ${to}::timestamp)
     order by kind desc, applies_to,
              array_position(array['grid', 'transmission', 'system', 'electricity_tax', 'other']::text[], role),
              owner_gln, name, valid_from`.execute(db);
  return result.rows;
}

/** Which grid companies' tariffs the household has, and where they came from. */
export async function householdGridOwners(
  db: Db,
): Promise<{ owner_gln: string; owner: string | null; source: string; last_from: string }[]> {
  const result = await sql<{ owner_gln: string; owner: string | null; source: string; last_from: string }>`
    select owner_gln, max(owner) as owner, max(source) as source, max(valid_from)::text as last_from
      from power.household_charges
     where role = 'grid'
     group by owner_gln
     order by max(valid_from) desc`.execute(db);
  return result.rows;
}

// ── what the other features read ───────────────────────────────────────────

/**
 * The household's consumption tariffs in force at an instant, by its Danish wall-clock hour, per
 * role, DKK/kWh: `grid`, `transmission`, `system`, `electricity_tax` (null while no period of the
 * role covers the hour, never guessed) and `other` (0 without any). Both 02:00 hours of the
 * autumn change read the 02 price.
 */
export function householdTariffsAt(instant: RawBuilder<unknown>) {
  const local = sql`(${instant} at time zone 'Europe/Copenhagen')`;
  const part = (role: string) =>
    sql`sum(hc.prices[extract(hour from ${local})::int + 1]) filter (where hc.role = ${role})`;
  return sql`
    select ${part('grid')} as grid, ${part('transmission')} as transmission, ${part('system')} as system,
           ${part('electricity_tax')} as electricity_tax, coalesce(${part('other')}, 0) as other
      from power.household_charges hc
     where hc.kind = 'tariff' and hc.applies_to = 'consumption' and hc.during @> ${local}`;
}

/**
 * The household's consumption tariffs, as a relation for a statement to join on a Danish
 * wall-clock hour `during @> hour`: each period's role, name, owner and its 24 hourly prices.
 */
export function consumptionTariffs() {
  return sql`
    select role, name, owner_gln, owner, prices, during
      from power.household_charges
     where kind = 'tariff' and applies_to = 'consumption'`;
}

export interface SubscriptionRow {
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
export async function subscriptionsDuring(db: Db, first: string, next: string): Promise<SubscriptionRow[]> {
  const result = await sql<SubscriptionRow>`
    select name, kind, owner_gln, owner, resolution, prices[1]::text as price_dkk,
           (least(coalesce(valid_to, ${next}::timestamp), ${next}::timestamp)::date
             - greatest(valid_from, ${first}::timestamp)::date) as days
      from power.household_charges
     where kind = 'subscription' and applies_to = 'consumption'
       and during && tsrange(${first}::timestamp, ${next}::timestamp)
     order by owner_gln, name, valid_from`.execute(db);
  return result.rows.map((r) => ({ ...r, days: Number(r.days) }));
}

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
