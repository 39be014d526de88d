import type { DailyRates, RatesService } from '../../src/btc/rates/service.js';

/** A deterministic in-memory RatesService, passed to the market feature in its tests. */
export class MemoryRates implements RatesService {
  private readonly listeners = new Set<(rates: DailyRates) => void>();

  constructor(private current: DailyRates | null) {}

  latest(): DailyRates | null {
    return this.current;
  }
  async forDate(date: string): Promise<DailyRates> {
    if (!this.current) throw new Error('no rates');
    return { ...this.current, date };
  }
  async forDates(dates: readonly string[]): Promise<DailyRates[]> {
    return Promise.all([...new Set(dates)].sort().map((d) => this.forDate(d)));
  }
  onChange(listener: (rates: DailyRates) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(rates: DailyRates): void {
    this.current = rates;
    for (const l of this.listeners) l(rates);
  }
}

export const RATES_0703: DailyRates = {
  date: '2026-07-03',
  rates_date: '2026-07-03',
  usd_eur: '0.923456',
  usd_dkk: '6.889123',
  eur_dkk: '7.460512',
};
