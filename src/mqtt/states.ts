import { Big } from 'big.js';
import type { PriceMessage, QuoteMessage } from '../btc/market/schemas.js';
import type { PortfolioJson } from '../btc/portfolio/figures.js';
import type { Cheapest, ConsumerPrices, Costs } from '../power/costs/schemas.js';
import type { PricesDay } from '../power/prices/schemas.js';

/**
 * The API's answers turned into state payloads, pure: each state is the API's own number for
 * the same instant, as text (a JavaScript number prints as JSON prints it). What is not known is
 * `None`, which Home Assistant's MQTT sensors and binary sensors take for "unknown".
 */

export const UNKNOWN = 'None';

export const text = (v: number | string | null | undefined): string =>
  v === null || v === undefined ? UNKNOWN : String(v);

const contains = (start: string, minutes: number, now: Date) => {
  const t = Date.parse(start);
  return t <= now.getTime() && now.getTime() < t + minutes * 60_000;
};

/** DKK/MWh (the API's /api/prices) to DKK/kWh, exact: a shift of the decimal point. */
const perKwh = (dkkMwh: number): string => new Big(dkkMwh).div(1000).toFixed();

/** The day-ahead price in force at `now` (its quarter hour, or its hour before 2025-10-01), DKK/kWh. */
export function spotNow(day: PricesDay | null, now: Date): string {
  const item = day?.items.find((i) => contains(i.time_dk, i.resolution_minutes, now));
  return item ? perKwh(item.price_dkk) : UNKNOWN;
}

/** The consumer price (all charges and VAT) of the interval (quarter or hour) of `now`, DKK/kWh. */
export function consumerNow(day: ConsumerPrices | null, now: Date): string {
  const minutes = day?.resolution === 'quarter' ? 15 : 60;
  return text(day?.items.find((i) => contains(i.time_dk, minutes, now))?.total);
}

export function cheapestStates(c: Cheapest | null): { start: string; price: string } {
  return { start: text(c?.start_dk), price: text(c?.average_dkk_kwh) };
}

/** Whether every interval of tomorrow is published for the area. */
export function publishedState(tomorrow: PricesDay | null): 'ON' | 'OFF' {
  return tomorrow?.complete && tomorrow.items.length > 0 ? 'ON' : 'OFF';
}

export function btcStates(p: PriceMessage | null): { eur: string; dkk: string; usd: string } {
  return { eur: text(p?.btc_eur), dkk: text(p?.btc_dkk), usd: text(p?.btc_usd) };
}

/** The sats the configured total buys, and what the whole total pays over spot (fee included), %. */
export function quoteStates(q: QuoteMessage | null): { sats: string; premium: string } {
  return { sats: text(q?.quote_sats), premium: text(q?.all_in_pct) };
}

export function portfolioStates(p: PortfolioJson | null): { value: string; sats: string; pnl: string } {
  return { value: text(p?.value?.eur), sats: text(p?.sats), pnl: text(p?.unrealized_pnl?.eur) };
}

/** A total that starts again at `since`: the shape `value_template` and `last_reset_value_template` read. */
export function costState(value: number | null, since: string | null): string {
  return JSON.stringify({ value, last_reset: since });
}

/**
 * The cost of one day metered whole (`c` its /api/costs answer, `since` its Danish midnight), its
 * date in the attributes; unknown while no day is, or when one of its intervals has no price.
 */
export function lastDayCost(c: Costs | null, since: string | null): { state: string; attributes: string } {
  const day = c?.days[0];
  const value = day?.complete ? day.cost_dkk : null;
  return {
    state: costState(value, value === null ? null : since),
    attributes: JSON.stringify({
      date: day?.date ?? null,
      consumption_kwh: day?.complete ? day.consumption_kwh : null,
    }),
  };
}

/**
 * The month's cost from its 1st through its last day metered whole (`c`, null before there is
 * one: unknown, not 0), with the days it covers and those it leaves out in the attributes.
 */
export function monthCost(
  c: Costs | null,
  since: string,
  first: string,
): { state: string; attributes: string } {
  return {
    state: costState(c ? c.total.cost_dkk : null, since),
    attributes: JSON.stringify({
      from: first,
      through: c?.to ?? null,
      complete: c?.total.complete ?? false,
      missing_days: c?.total.missing_days ?? [],
    }),
  };
}

/** A feed's binary sensor (device class problem): on when it fails. */
export const problemState = (ok: boolean): 'ON' | 'OFF' => (ok ? 'OFF' : 'ON');
