import type { DailyRates, RatesService } from '../../src/btc/rates/service.js';
import { ProviderError } from '../../src/providers/http.js';

/**
 * Deterministic rates for any date, varying with the day so a wrong date shows in the figures:
 * usd_eur 0.9 + day/1000, usd_dkk 6.7 + day/100, and the cross derived from them.
 */
export function ratesFor(date: string): DailyRates {
  const day = Number(date.slice(8, 10));
  const usdEur = (0.9 + day / 1000).toFixed(4);
  const usdDkk = (6.7 + day / 100).toFixed(4);
  const eurDkk = (Number(usdDkk) / Number(usdEur)).toFixed(6);
  return { date, rates_date: date, usd_eur: usdEur, usd_dkk: usdDkk, eur_dkk: eurDkk };
}

/** A test-only stand-in for the rates service; counts the dates asked. */
export function fakeRates(asked: string[] = []): RatesService {
  const forDate = async (date: string) => {
    asked.push(date);
    return ratesFor(date);
  };
  return {
    latest: () => null,
    forDate,
    forDates: (dates) => Promise.all([...new Set(dates)].sort().map(forDate)),
    onChange: () => () => {},
  };
}

/** The rates service while its provider is down: every fetch fails as the real one would. */
export const downRates: RatesService = {
  latest: () => null,
  forDate: async () => {
    throw new ProviderError('frankfurter', 'connection refused', { transient: true });
  },
  forDates: async () => {
    throw new ProviderError('frankfurter', 'connection refused', { transient: true });
  },
  onChange: () => () => {},
};

/** The same rates on every day (EUR/DKK 7.5), for figures a test computes by hand. */
export const flatRates: RatesService = {
  latest: () => null,
  forDate: async (date) => flatRate(date),
  forDates: async (dates) => [...new Set(dates)].sort().map(flatRate),
  onChange: () => () => {},
};
function flatRate(date: string): DailyRates {
  return { date, rates_date: date, usd_eur: '0.9', usd_dkk: '6.75', eur_dkk: '7.5' };
}
