import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { MeterLink } from './build.js';
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

/**
 * Every charge link the meter ever listed (power.charges keeps them from each read), with the
 * metering point's type (E18: production) and its prices by position.
 */
export async function meterLinks(db: Db): Promise<MeterLink[]> {
  const result = await sql<{
    kind: MeterLink['kind'];
    type_of_mp: string | null;
    name: string;
    owner_gln: string;
    period_type: string | null;
    valid_from: Date;
    valid_to: Date | null;
    prices: string[] | null;
  }>`
    select c.kind, mp.type_of_mp, c.name, c.owner_gln, c.period_type, c.valid_from, c.valid_to,
           (select array_agg(p.price_dkk::text order by p.position) from power.charge_prices p
             where p.charge_id = c.charge_id) as prices
      from power.charges c
      left join power.metering_points mp using (metering_point_id)
     order by c.valid_from, c.charge_id`.execute(db);
  return result.rows.map((r) => ({
    kind: r.kind,
    appliesTo: r.type_of_mp === 'E18' ? 'production' : 'consumption',
    name: r.name,
    ownerGln: r.owner_gln,
    periodType: r.period_type,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    prices: r.prices ?? [],
  }));
}
