import Big from 'big.js';
import type { FeedHealth } from '../shared/health.js';
import { addDays } from '../shared/danish-time.js';
import type { OnBusy } from './budget.js';
import { Type } from 'typebox';
import { answer, refused } from './answer.js';
import {
  Base,
  Day,
  FRANKFURTER,
  MAX_SERIES_DAYS,
  Rates,
  daysFrom,
  decimals,
  parseV1Series,
  publicationOfEachDay,
} from './frankfurter-series.js';
import { HttpProvider, type ProviderDeps } from './http.js';
import { JumpGuard, USD_DKK, USD_EUR } from './plausible.js';

export { FRANKFURTER };

/** A Frankfurter v1 answer: `{amount, base, date, rates: {CUR: number}}`, rates as exact decimal strings. */
export interface V1Rates {
  base: string;
  /** The publication day the rates are from. */
  date: string;
  rates: Record<string, string>;
}

/** USD-based EUR and DKK rates with the EUR/DKK cross; decimal strings. */
export interface UsdRates {
  rates_date: string;
  usd_eur: string;
  usd_dkk: string;
  eur_dkk: string;
}

/** Decimal places of the EUR/DKK cross: far more than the 6 significant decimals asked for. */
export const CROSS_DP = 10;

/** EUR/DKK = (DKK per USD) / (EUR per USD), divided exactly and rounded half-even. */
export function crossRate(usdEur: string, usdDkk: string): string {
  return new Big(usdDkk).div(new Big(usdEur)).round(CROSS_DP, Big.roundHalfEven).toString();
}

export interface FrankfurterOptions extends ProviderDeps {
  baseUrl: string;
  timeoutMs: number;
  health?: FeedHealth;
  retries?: number;
  initialDelayMs?: number;
}

/**
 * Frankfurter v1 (ECB reference rates): `GET /v1/{date|latest}?base=USD&symbols=EUR,DKK`, and
 * the time series `GET /v1/{start}..{end}` with the same query.
 */
export class FrankfurterClient {
  private readonly http: HttpProvider;
  /** USD/EUR and USD/DKK may not move by more than 2× from the last accepted answer unless a second answer agrees. */
  private readonly guard: JumpGuard;

  constructor(private readonly opts: FrankfurterOptions) {
    this.guard = new JumpGuard();
    this.http = new HttpProvider({
      ...opts,
      health: undefined,
      name: FRANKFURTER,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
      timeoutMs: opts.timeoutMs,
      retries: opts.retries ?? 2,
      initialDelayMs: opts.initialDelayMs ?? 300,
      maxDelayMs: 5_000,
    });
  }

  /** The rates of a day (YYYY-MM-DD, or "latest"), in the v1 shape, validated. */
  v1(day: string, base: string, symbols: string[], o: CallOptions = {}): Promise<V1Rates> {
    return this.recorded(() => this.fetchV1(day, base, symbols, o));
  }

  private async fetchV1(day: string, base: string, symbols: string[], o: CallOptions): Promise<V1Rates> {
    const body = await this.http.get<unknown>(`/v1/${day}`, {
      query: { base, symbols: symbols.join(',') },
      signal: o.signal,
      retries: o.retries,
      onBusy: o.onBusy,
    });
    return parseV1(body, `the answer for ${day}`);
  }

  /** USD→EUR, USD→DKK and the EUR/DKK cross of a day (YYYY-MM-DD, or "latest"). */
  usdRates(day: string, o: CallOptions = {}): Promise<UsdRates> {
    return this.recorded(async () => {
      const v1 = await this.fetchV1(day, 'USD', ['EUR', 'DKK'], o);
      const usdEur = v1.rates.EUR;
      const usdDkk = v1.rates.DKK;
      if (v1.base !== 'USD' || usdEur === undefined || usdDkk === undefined)
        throw refuse(
          `answer for ${day} lacks USD-based EUR and DKK (base ${v1.base}, rates ${Object.keys(v1.rates).join(',')})`,
        );
      // A day's rates come from that day or the publication day before it (Frankfurter looks back 14 days).
      if (day !== 'latest' && (v1.date > day || v1.date < addDays(day, -LOOKBACK_DAYS))) {
        this.opts.health?.reject(`rates dated ${v1.date} for ${day}`);
        throw refuse(
          `answer for ${day} is dated ${v1.date}, outside ${addDays(day, -LOOKBACK_DAYS)}..${day}`,
        );
      }
      const why = this.implausible(usdEur, usdDkk);
      if (why) {
        this.opts.health?.reject(why);
        throw refuse(`implausible rates for ${day}: ${why}`);
      }
      return { rates_date: v1.date, usd_eur: usdEur, usd_dkk: usdDkk, eur_dkk: crossRate(usdEur, usdDkk) };
    });
  }

  /**
   * The rates of every day of `start..end` (at most MAX_SERIES_DAYS) in one time-series call,
   * each day's as `usdRates(day)` answers it: its own publication, or the latest before it within
   * 14 days. The answer is refused whole when any of it fails a check.
   */
  async usdRatesSeries(start: string, end: string, o: CallOptions = {}): Promise<Map<string, UsdRates>> {
    const span = daysFrom(start, end).length;
    if (span === 0 || span > MAX_SERIES_DAYS)
      throw new RangeError(`a series of ${start}..${end} is not 1 to ${MAX_SERIES_DAYS} days`);
    return this.recorded(async () => {
      const range = `${start}..${end}`;
      const body = await this.http.get<unknown>(`/v1/${range}`, {
        query: { base: 'USD', symbols: 'EUR,DKK' },
        signal: o.signal,
        retries: o.retries,
        onBusy: o.onBusy,
      });
      const series = parseV1Series(body, `the answer for ${range}`);
      const earliest = addDays(start, -LOOKBACK_DAYS);
      if (series.start_date < earliest || series.end_date > end) {
        this.opts.health?.reject(`rates dated ${series.start_date}..${series.end_date} for ${range}`);
        throw refuse(
          `answer for ${range} holds rates dated ${series.start_date}..${series.end_date}, outside ${earliest}..${end}`,
        );
      }
      const byPublication = new Map<string, UsdRates>();
      for (const [day, rates] of series.rates) {
        const usdEur = rates.EUR;
        const usdDkk = rates.DKK;
        if (series.base !== 'USD' || usdEur === undefined || usdDkk === undefined)
          throw refuse(
            `answer for ${range} lacks USD-based EUR and DKK on ${day} (base ${series.base}, rates ${Object.keys(rates).join(',')})`,
          );
        const why = this.implausible(usdEur, usdDkk);
        if (why) {
          this.opts.health?.reject(why);
          throw refuse(`implausible rates of ${day} for ${range}: ${why}`);
        }
        byPublication.set(day, {
          rates_date: day,
          usd_eur: usdEur,
          usd_dkk: usdDkk,
          eur_dkk: crossRate(usdEur, usdDkk),
        });
      }
      let each;
      try {
        each = publicationOfEachDay([...byPublication.keys()], start, end, LOOKBACK_DAYS);
      } catch (e) {
        throw refuse(`answer for ${range}: ${(e as Error).message}`);
      }
      return new Map([...each].map(([day, pub]) => [day, byPublication.get(pub)!]));
    });
  }

  /** Why the rates are refused or held back (JumpGuard), or null. */
  private implausible(usdEur: string, usdDkk: string): string | null {
    const held = [this.guard.check('USD/EUR', usdEur, USD_EUR), this.guard.check('USD/DKK', usdDkk, USD_DKK)];
    return held.filter((h) => h !== null).join('; ') || null;
  }

  /** The last rates known good (the latest stored), which the next answers are compared with. */
  accepted(rates: { usd_eur: string; usd_dkk: string }): void {
    this.guard.prime('USD/EUR', rates.usd_eur, USD_EUR);
    this.guard.prime('USD/DKK', rates.usd_dkk, USD_DKK);
  }

  /** Health counts a call good only once its answer passed validation. */
  private async recorded<T>(call: () => Promise<T>): Promise<T> {
    try {
      const value = await call();
      this.opts.health?.success();
      return value;
    } catch (e) {
      this.opts.health?.failure(e);
      throw e;
    }
  }
}

interface CallOptions {
  signal?: AbortSignal;
  retries?: number;
  /** A client's request is refused when the budget is spent ('refuse'); background work waits (the default). */
  onBusy?: OnBusy;
}

const refuse = (message: string) => refused(FRANKFURTER, message);

/** How far back Frankfurter carries the last publication forward (weekends, holidays). */
const LOOKBACK_DAYS = 14;

/** `GET /v1/{date}`: `{amount, base, date, rates: {CUR: number}}`; amount is not read. */
const V1Answer = answer(FRANKFURTER, Type.Object({ base: Base, date: Day, rates: Rates }));

/** The answer as declared, `what` naming it in a refusal; JSON numbers become their exact decimal text. */
export function parseV1(body: unknown, what = 'the answer'): V1Rates {
  const o = V1Answer.parse(body, what);
  return { base: o.base, date: o.date, rates: decimals(o.rates) };
}
