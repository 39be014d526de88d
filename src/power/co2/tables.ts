/** One 5-minute value of a CO₂ prognosis, as issued when it was fetched (migration power/0150). */
export interface Co2ForecastsTable {
  price_area: string;
  time_utc: Date;
  issued_at: Date;
  /** g/kWh, numeric */
  g_kwh: string;
}

/** One realized 5-minute value. */
export interface Co2RealizedTable {
  price_area: string;
  time_utc: Date;
  g_kwh: string;
  fetched_at: Date;
}

export interface Co2Tables {
  'power.co2_forecasts': Co2ForecastsTable;
  'power.co2_realized': Co2RealizedTable;
}
