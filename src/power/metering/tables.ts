import type { Generated } from 'kysely';

export interface MeteringPointsTable {
  metering_point_id: string;
  parent_id: string | null;
  type_of_mp: string;
  settlement_method: string | null;
  reading_occurrence: string | null;
  meter_number: string | null;
  postcode: string | null;
  city_name: string | null;
  balance_supplier_name: string | null;
  synced_at: Generated<Date>;
}

export interface MeterReadingsTable {
  metering_point_id: string;
  start_at: Date;
  resolution: string;
  business_type: string;
  /** numeric: exact decimal text */
  quantity_kwh: string;
  quality: string | null;
}

export interface ChargesTable {
  charge_id: Generated<number>;
  metering_point_id: string;
  kind: 'subscription' | 'fee' | 'tariff';
  name: string;
  description: string | null;
  owner_gln: string;
  period_type: string | null;
  quantity: number | null;
  valid_from: Date;
  valid_to: Date | null;
}

export interface ChargePricesTable {
  charge_id: number;
  position: number;
  price_dkk: string;
}

/** Production (D06) and consumption (D07) share one shape. */
export interface HourlyEnergyTable {
  metering_point_id: string;
  start_at: Date;
  quantity_kwh: string;
  quality: string | null;
  /** 60 for an hourly reading, 15 for a quarter hour's (migration 0141) */
  resolution_minutes?: number;
}

/**
 * One metered hour, kept by the database's triggers from the readings of production, consumption
 * and the solar inverter (migration 0083); read through this feature's `meteredHoursBetween`.
 */
export interface MeteredHoursTable {
  start_at: Date;
  /** the Danish calendar day of the hour */
  date_dk: Generated<string>;
  /** kWh, every consumption point's reading summed; null without one */
  consumption_kwh: string | null;
  /** kWh supplied to the grid */
  production_kwh: string | null;
  /** kWh of the solar inverter */
  solar_kwh: string | null;
  /** 60 for an hour's readings, 15 for a quarter hour's (migration 0141) */
  minutes: Generated<number>;
}

/** The last Danish day the daily metering sync stored (one row). */
export interface MeteringSyncStateTable {
  id: Generated<boolean>;
  last_synced_day: string;
  updated_at: Generated<Date>;
}

export interface MeteringTables {
  'power.metering_points': MeteringPointsTable;
  'power.meter_readings': MeterReadingsTable;
  'power.charges': ChargesTable;
  'power.charge_prices': ChargePricesTable;
  'power.production': HourlyEnergyTable;
  'power.consumption': HourlyEnergyTable;
  'power.metered_hours': MeteredHoursTable;
  'power.metering_sync_state': MeteringSyncStateTable;
}
