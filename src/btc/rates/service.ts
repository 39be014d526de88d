import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import { invalid } from '../../shared/refusal.js';
import { DAYS } from '../../shared/days.js';
import type { FrankfurterClient } from '../../providers/frankfurter.js';
import { MAX_SERIES_DAYS } from '../../providers/frankfurter-series.js';
import { BudgetExhausted, type OnBusy } from '../../providers/budget.js';
import { ProviderError } from '../../providers/http.js';
import { untilAborted } from '../../shared/abort.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate, isCalendarDate } from '../../shared/danish-time.js';
import * as repo from './repository.js';

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
  forDate(date: string, signal?: AbortSignal, onBusy?: OnBusy): Promise<DailyRates>;
  /**
   * The stored rates of many dates (each once, in date order), the missing ones fetched in as
   * few time-series calls as MAX_SERIES_DAYS allows and stored all together, or none stored and
   * the ProviderError thrown. Before any transaction, as forDate.
   */
  forDates(dates: readonly string[], signal?: AbortSignal, onBusy?: OnBusy): Promise<DailyRates[]>;
  /** Called whenever latest() changes; returns the unsubscribe function. */
  onChange(listener: (rates: DailyRates) => void): () => void;
}

/** The first day of ECB reference rates; Frankfurter has nothing before it (the schemas' range too). */
export const FIRST_RATES_DATE = DAYS.rates.min;

export interface RatesDeps {
  db: Db;
  client: FrankfurterClient;
  clock: Clock;
  log: Logger;
  shutdown: AbortSignal;
}

/** Daily rates: stored records, fetched on a miss, and the latest kept in memory. */
export class Rates implements RatesService {
  private current: DailyRates | null = null;
  private readonly listeners = new Set<(rates: DailyRates) => void>();
  /** One provider call per date, however many callers miss it at once. */
  private readonly inFlight = new Map<string, Promise<DailyRates>>();

  constructor(private readonly deps: RatesDeps) {}

  latest(): DailyRates | null {
    return this.current;
  }

  onChange(listener: (rates: DailyRates) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  today(): string {
    return danishDate(this.deps.clock.now());
  }

  /**
   * Also refuses (400, naming `date`) a malformed day, a future one, and one before the ECB's
   * first rates. The fetch is shared by every caller of the date and runs until shutdown;
   * `signal` only stops this caller's wait. When the provider's budget is spent, `onBusy`
   * 'refuse' (an anonymous request) fails at once (503, Retry-After) and 'wait' waits for it,
   * fetching again if the fetch it joined was refused.
   */
  async forDate(date: string, signal?: AbortSignal, onBusy: OnBusy = 'wait'): Promise<DailyRates> {
    this.checkDate(date);
    const stored = await repo.findByDate(this.deps.db, date);
    if (stored) return stored;
    try {
      return await untilAborted(this.shared(date, onBusy), signal);
    } catch (e) {
      if (!(e instanceof BudgetExhausted) || onBusy === 'refuse') throw e;
      return untilAborted(this.shared(date, 'wait'), signal);
    }
  }

  /** Also refuses (400, naming the date) a day forDate refuses, before anything is read. */
  async forDates(
    dates: readonly string[],
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<DailyRates[]> {
    const days = [...new Set(dates)].sort();
    for (const d of days) this.checkDate(d);
    const stored = await repo.findByDates(this.deps.db, days);
    const missing = days.filter((d) => !stored.has(d));
    if (missing.length > 0) {
      const call = signal ? AbortSignal.any([this.deps.shutdown, signal]) : this.deps.shutdown;
      const fetched: DailyRates[] = [];
      for (const [start, end] of seriesCovering(missing)) {
        const series = await this.deps.client.usdRatesSeries(start, end, { signal: call, onBusy });
        for (const d of missing) if (d >= start && d <= end) fetched.push({ date: d, ...series.get(d)! });
      }
      await repo.upsertMany(this.deps.db, fetched);
      for (const [d, r] of await repo.findByDates(this.deps.db, missing)) stored.set(d, r);
      this.offer(stored.get(missing.at(-1)!)!);
    }
    return days.map((d) => stored.get(d)!);
  }

  private shared(date: string, onBusy: OnBusy): Promise<DailyRates> {
    let pending = this.inFlight.get(date);
    if (!pending) {
      pending = this.fetchAndStore(date, onBusy).finally(() => this.inFlight.delete(date));
      this.inFlight.set(date, pending);
    }
    return pending;
  }

  /**
   * GET /api/currencies/:date. Today answers the latest stored record (fetched only when none
   * exists); a past day its stored record, or fetched and stored; a future day is bad input.
   */
  async forRequest(date: string, signal?: AbortSignal): Promise<DailyRates> {
    this.checkDate(date);
    if (date === this.today()) {
      const latest = await repo.findLatest(this.deps.db);
      if (latest) return { ...latest, date };
    }
    return this.forDate(date, signal, 'refuse');
  }

  private checkDate(date: string): void {
    if (!isCalendarDate(date)) throw invalid(`date: "${date}" is not a calendar date YYYY-MM-DD`);
    const today = this.today();
    if (date > today) throw invalid(`date: ${date} is in the future (today in Denmark is ${today})`);
    if (date < FIRST_RATES_DATE)
      throw invalid(`date: ${date} is before the first ECB reference rates (${FIRST_RATES_DATE})`);
  }

  /** Seeds the in-memory latest from the latest stored record. */
  async seed(): Promise<void> {
    const latest = await repo.findLatest(this.deps.db);
    if (latest) {
      this.deps.client.accepted(latest);
      this.offer(latest);
    }
  }

  /** Fetches the provider's latest rates as today's record; one attempt when `retries` is 0. */
  async refresh(retries?: number): Promise<DailyRates | null> {
    const today = this.today();
    const fetched = await this.deps.client.usdRates('latest', { signal: this.deps.shutdown, retries });
    if (fetched.rates_date > today) {
      this.deps.log.warn(
        { today, rates_date: fetched.rates_date },
        'latest rates are dated after today; skipped',
      );
      return null;
    }
    const stored = await repo.upsert(this.deps.db, { date: today, ...fetched });
    this.offer(stored);
    return stored;
  }

  private async fetchAndStore(date: string, onBusy: OnBusy): Promise<DailyRates> {
    // A caller whose first read raced the previous fetch's commit finds the record now.
    const known = await repo.findByDate(this.deps.db, date);
    if (known) return known;
    const fetched = await this.deps.client.usdRates(date, { signal: this.deps.shutdown, onBusy });
    if (fetched.rates_date > date)
      throw new ProviderError('frankfurter', `answered rates of ${fetched.rates_date} for ${date}`, {
        status: 200,
        transient: false,
      });
    const stored = await repo.upsert(this.deps.db, { date, ...fetched });
    this.offer(stored);
    return stored;
  }

  /** Takes a record as the latest when it is for a later day, or a later publication of the same day. */
  private offer(record: DailyRates): void {
    const c = this.current;
    const newer =
      c === null || record.date > c.date || (record.date === c.date && record.rates_date > c.rates_date);
    if (!newer) return;
    this.current = record;
    for (const l of this.listeners) {
      try {
        l(record);
      } catch (e) {
        this.deps.log.error({ err: e }, 'rates listener failed');
      }
    }
  }
}

/**
 * The fewest spans of at most MAX_SERIES_DAYS that cover the sorted days: each starts at the
 * first day not yet covered. Days between that are stored cost nothing extra in a series call.
 */
export function seriesCovering(sortedDays: readonly string[]): [string, string][] {
  const spans: [string, string][] = [];
  for (const d of sortedDays) {
    const last = spans.at(-1);
    if (last && d <= addDays(last[0], MAX_SERIES_DAYS - 1)) last[1] = d;
    else spans.push([d, d]);
  }
  return spans;
}
