import type { Generated, Kysely, Transaction } from 'kysely';
import type { CandleTables } from '../btc/candles/tables.js';
import type { ChainTables } from '../btc/chain/tables.js';
import type { RatesTables } from '../btc/rates/tables.js';
import type { ImportTables } from '../btc/imports/tables.js';
import type { LedgerTables } from '../btc/ledger/tables.js';
import type { MarketTables } from '../btc/market/tables.js';
import type { TaxTables } from '../btc/tax/tables.js';
import type { PricesTables } from '../power/prices/tables.js';
import type { MeteringTables } from '../power/metering/tables.js';
import type { SolarTables } from '../power/solar/tables.js';
import type { HouseholdTables } from '../power/household/tables.js';
import type { HaStatisticsTables } from '../power/ha-statistics/tables.js';
import type { Co2Tables } from '../power/co2/tables.js';
import type { WindowSettingsTables } from '../mqtt/windows/tables.js';

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

export interface DB
  extends
    CoreTables,
    RatesTables,
    CandleTables,
    LedgerTables,
    ImportTables,
    ChainTables,
    MarketTables,
    TaxTables,
    PricesTables,
    MeteringTables,
    SolarTables,
    HouseholdTables,
    HaStatisticsTables,
    Co2Tables,
    WindowSettingsTables {}

/** The handle every repository function takes first: the database, or a transaction on it. */
export type Db = Kysely<DB> | Transaction<DB>;
