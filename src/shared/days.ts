import { isCalendarDate } from './danish-time.js';

/**
 * The days a kind of data can exist on. The lower bound is where the data begins in the world;
 * the upper bound is one fixed far day rather than one near today, so a schema stays a constant
 * (the OpenAPI document shows it) and the rules that depend on today stay in the services.
 */
export interface DayRange {
  readonly min: string;
  readonly max: string;
}

/** No household data is dated in the next century, and every Danish day before it fits the database. */
const LAST_DAY = '2099-12-31';

export const DAYS = {
  /** The bitcoin ledger: the genesis block was mined on 2009-01-03. */
  ledger: { min: '2009-01-03', max: LAST_DAY },
  /** The ECB's first euro reference rates, the source of every rate. */
  rates: { min: '1999-01-04', max: LAST_DAY },
  /** Nord Pool's first day-ahead prices for West Denmark (DK1). */
  prices: { min: '1999-07-01', max: LAST_DAY },
  /** Energi Data Service's CO₂ datasets (CO2Emis, CO2EmisProg) begin in January 2017. */
  co2: { min: '2017-01-01', max: LAST_DAY },
  /** Energinet's DataHub, the source of every Eloverblik reading, began in 2013. */
  metering: { min: '2013-01-01', max: LAST_DAY },
  /** A plausibility floor for inverter logs, which the household imports from CSV. */
  solar: { min: '2000-01-01', max: LAST_DAY },
} as const satisfies Record<string, DayRange>;

/** The same check for a day that did not come through a schema, such as one inside a cursor. */
export function isDayIn(range: DayRange, text: string): boolean {
  return isCalendarDate(text) && text >= range.min && text <= range.max;
}
