import type { Generated } from 'kysely';
import type { PricesTables } from '../power/prices/tables.js';

/**
 * Every table Kysely knows, as the union of each feature's table types.
 * A feature adds its tables in its own folder and one `extends` here.
 */
export interface CoreTables {
  satwatt_migrations: {
    schema_name: string;
    version: number;
    name: string;
    checksum: string;
    applied_at: Generated<Date>;
  };
}

export interface DB extends CoreTables, PricesTables {}
