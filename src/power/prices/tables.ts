import type { Generated } from 'kysely';

/** One day-ahead price per period (quarter hour, or hour before 2025-10-01) and area. */
export interface PricesTable {
  /** Danish-time instants are timestamptz (Date); DKK amounts are numeric (string). */
  time_dk: Date;
  price_area: string;
  resolution_minutes: number;
  price_dkk: string;
  price_eur: string | null;
  fetched_at: Generated<Date>;
}

/** One row per hour and area: the mean price, the grid tariff and their sum, DKK/MWh. */
export interface ElpricesTable {
  time_dk: Date;
  price_area: string;
  price_dkk: string;
  tariff_dkk: string | null;
  total_dkk: string | null;
  /** Energinet's charges valid at the hour, DKK/kWh; null while no period covers it. */
  transmission_dkk_kwh: string | null;
  system_dkk_kwh: string | null;
  electricity_tax_dkk_kwh: string | null;
  /** The household's other consumption tariffs summed, DKK/kWh (0 without any). */
  other_tariffs_dkk_kwh: Generated<string>;
  /** Generated: spot + grid tariff + the three charges, DKK/kWh, before markup and VAT. */
  charges_sum_dkk_kwh: Generated<string | null>;
}

export interface PricesTables {
  'power.prices': PricesTable;
  'power.elprices': ElpricesTable;
}
