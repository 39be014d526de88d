import type { Generated } from 'kysely';

/** The household's charges (migration power/0140); times are Danish wall-clock `timestamp`s. */
export interface HouseholdChargesTable {
  kind: 'tariff' | 'subscription' | 'fee';
  role: string;
  applies_to: 'consumption' | 'production';
  owner_gln: string;
  owner: string | null;
  name: string;
  code: string | null;
  source: 'meter' | 'config';
  prices_from: 'DatahubPricelist' | 'meter';
  valid_from: string;
  valid_to: string | null;
  resolution: string;
  /** numeric[] as PostgreSQL array text on the way in, string[] on the way out */
  prices: string | string[];
  during: Generated<string>;
}

export interface HouseholdTables {
  'power.household_charges': HouseholdChargesTable;
}
