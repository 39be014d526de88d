import type { Generated } from 'kysely';

/** One metered hour, kept by the database's triggers from the readings (migration 0083). */
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

export interface CostTables {
  'power.metered_hours': MeteredHoursTable;
}
