import type { Generated } from 'kysely';

/** Danish-time instants are timestamptz (Date); DKK amounts are numeric (string). */
export interface PricesTables {
  'power.prices': {
    time_dk: Date;
    price_area: string;
    resolution_minutes: number;
    price_dkk: string;
    price_eur: string | null;
    fetched_at: Generated<Date>;
  };
  'power.elprices': {
    time_dk: Date;
    price_area: string;
    price_dkk: string;
    tariff_dkk: string | null;
    total_dkk: string | null;
  };
  'power.tariff_periods': {
    grid_company_gln: string;
    charge_type_code: string;
    /** Danish wall-clock time, `timestamp` without zone. */
    valid_from: string;
    valid_to: string | null;
    ore_per_kwh: string;
    source: string;
    updated_at: Generated<Date>;
  };
}
