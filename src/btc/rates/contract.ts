import type { AppContext } from '../../context.js';

/** One day's ECB reference rates, USD-based, with the EUR/DKK cross; decimal strings, exact. */
export interface DailyRates {
  /** The day asked for. */
  date: string;
  /** The publication day the rates came from: the previous business day on weekends and holidays. */
  rates_date: string;
  usd_eur: string;
  usd_dkk: string;
  eur_dkk: string;
}

/**
 * What the rates feature offers the rest of the btc service (the ledger converts deposits
 * with it; the market feed derives BTC/DKK from it).
 */
export interface RatesService {
  /** The latest rates in memory, seeded from the database at start; null when none were ever stored. */
  latest(): DailyRates | null;
  /**
   * The stored rates of a past or current date, fetched and stored first when missing.
   * Throws a ProviderError when it must fetch and the provider is down. Call it before opening
   * a transaction, never inside one: it may wait on the network.
   */
  forDate(date: string, signal?: AbortSignal): Promise<DailyRates>;
  /** Called whenever latest() changes; returns the unsubscribe function. */
  onChange(listener: (rates: DailyRates) => void): () => void;
}

const registry = new WeakMap<AppContext, RatesService>();

/** The rates feature registers its service when it is created (it is mounted first in btc). */
export function provideRates(ctx: AppContext, service: RatesService): void {
  registry.set(ctx, service);
}

export function ratesOf(ctx: AppContext): RatesService {
  const service = registry.get(ctx);
  if (!service) throw new Error('the rates feature is not mounted in this process');
  return service;
}
