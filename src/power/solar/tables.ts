/** numeric columns come back as exact decimal text. */
export interface SolarTable {
  start_at: Date;
  energy_kwh: string;
  power_w: string;
  voltage_v: string;
  current_a: string;
  frequency_hz: string;
  temperature_c: string;
  total_yield_kwh: string;
}

export interface SolarTables {
  'power.solar': SolarTable;
}
