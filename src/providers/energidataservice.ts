import type { FeedHealth } from '../shared/health.js';
import { addDays, danishDayBounds } from '../shared/danish-time.js';
import type { OnBusy } from './budget.js';
import { malformed } from './answer.js';
import {
  DAY_AHEAD_FROM,
  PROVIDER_NAME,
  PRICE_AREAS,
  parseDatahubPricelist,
  parseDayAheadPrices,
  parseElspotprices,
  type DayAheadPrice,
  type TariffRecord,
} from './energidataservice-parse.js';
import { HttpProvider, type ProviderDeps } from './http.js';
import { textFault } from '../shared/text.js';
import { chargeRefusal, dayAheadPriceInBounds } from './plausible.js';

export {
  DAY_AHEAD_FROM,
  LocalTime,
  PROVIDER_NAME,
  PRICE_AREAS,
  parseDatahubPricelist,
  parseDayAheadPrices,
  parseElspotprices,
  type PriceArea,
  type DayAheadPrice,
  type TariffRecord,
} from './energidataservice-parse.js';

/**
 * Energi Data Service: DayAheadPrices (quarter-hours since 2025-10-01), Elspotprices (hourly,
 * until 2025-09-30) and DatahubPricelist. One request per date range and area set; retries,
 * 429 and Retry-After are HttpProvider's.
 */
export class EnergiDataService {
  private readonly http: HttpProvider;
  private readonly health: FeedHealth | undefined;

  constructor(
    opts: ProviderDeps & {
      baseUrl: string;
      timeoutMs: number;
      health?: FeedHealth;
      retries?: number;
      initialDelayMs?: number;
    },
  ) {
    this.health = opts.health;
    this.http = new HttpProvider({
      ...opts,
      name: PROVIDER_NAME,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
      timeoutMs: opts.timeoutMs,
      retries: opts.retries ?? 3,
      // The provider blocks an IP for about 5 minutes after 40 requests in 10 s; back off generously.
      initialDelayMs: opts.initialDelayMs ?? 1000,
      // A longer Retry-After (the block lasts about 5 minutes) fails the call at once instead of holding a request.
      maxRetryAfterMs: 30_000,
      // Its 429 names no wait; the documented block is about five minutes, for every caller.
      rateLimitPauseMs: 5 * 60_000,
    });
  }

  /**
   * Day-ahead prices of the Danish days [from, to) for both areas, from the dataset(s) that
   * hold them: a range across 2025-10-01 takes one request per dataset. `onBusy: 'refuse'`
   * (a client's request) fails at once with BudgetExhausted when the budget is spent.
   */
  async spotPrices(
    from: string,
    to: string,
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<DayAheadPrice[]> {
    const out: DayAheadPrice[] = [];
    if (from < DAY_AHEAD_FROM)
      out.push(...(await this.dataset('Elspotprices', from, minDate(to, DAY_AHEAD_FROM), signal, onBusy)));
    if (to > DAY_AHEAD_FROM)
      out.push(...(await this.dataset('DayAheadPrices', maxDate(from, DAY_AHEAD_FROM), to, signal, onBusy)));
    return this.trusted(out, from, to);
  }

  /** Drops, and counts in /health, rows outside the asked Danish days or the SDAC price limits. */
  private trusted(rows: DayAheadPrice[], from: string, to: string): DayAheadPrice[] {
    const start = danishDayBounds(from).start;
    const end = danishDayBounds(addDays(to, -1)).end;
    const kept = rows.filter(
      (r) => r.timeUtc >= start && r.timeUtc < end && dayAheadPriceInBounds(r.priceDkk, r.priceEur),
    );
    const dropped = rows.length - kept.length;
    if (dropped > 0)
      this.health?.reject(
        `${dropped} day-ahead rows outside ${from}..${to} or the SDAC price limits`,
        dropped,
      );
    return kept;
  }

  private async dataset(
    name: 'Elspotprices' | 'DayAheadPrices',
    from: string,
    to: string,
    signal: AbortSignal | undefined,
    onBusy: OnBusy,
  ): Promise<DayAheadPrice[]> {
    const body = await this.http.get<unknown>(`/dataset/${name}`, {
      query: {
        start: from,
        end: to,
        filter: JSON.stringify({ PriceArea: PRICE_AREAS }),
        sort: name === 'Elspotprices' ? 'HourUTC asc' : 'TimeUTC asc',
        limit: 0,
      },
      signal,
      onBusy,
    });
    return name === 'Elspotprices' ? parseElspotprices(body) : parseDayAheadPrices(body);
  }

  /**
   * DatahubPricelist records matching every given column (each a list of allowed values), newest
   * first: a charge's history by owner GLN, charge type and Note, or by codes.
   */
  async pricelist(
    filter: { GLN_Number: string[]; ChargeType: string[]; Note?: string[]; ChargeTypeCode?: string[] },
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<TariffRecord[]> {
    const body = await this.http.get<unknown>('/dataset/DatahubPricelist', {
      query: { filter: JSON.stringify(filter), sort: 'ValidFrom desc', limit: 0 },
      signal,
      onBusy,
    });
    return this.trustedCharges(parseDatahubPricelist(body, filter.GLN_Number[0] ?? ''));
  }

  /** The D03 tariff records of a grid company's given charge codes, newest first. */
  async tariffs(gln: string, codes: string[], signal?: AbortSignal): Promise<TariffRecord[]> {
    const body = await this.http.get<unknown>('/dataset/DatahubPricelist', {
      query: {
        filter: JSON.stringify({ GLN_Number: [gln], ChargeType: ['D03'], ChargeTypeCode: codes }),
        sort: 'ValidFrom desc',
        limit: 0,
      },
      signal,
    });
    return this.trustedCharges(parseDatahubPricelist(body, gln));
  }

  /**
   * A pricelist answer with an implausible charge (plausible.ts) is refused whole and counted in
   * /health: the household's charges are replaced whole from such answers, so none of it is taken.
   */
  private trustedCharges(records: TariffRecord[]): TariffRecord[] {
    const refused = records.flatMap((r) => {
      const code = textFault(r.chargeTypeCode);
      const why =
        chargeRefusal({
          kind: CHARGE_KIND[r.chargeType ?? 'D03'] ?? 'tariff',
          name: r.note ?? r.chargeTypeCode,
          ownerGln: r.gln,
          prices: r.hourly,
        }) ??
        (code && `charge code ${JSON.stringify(r.chargeTypeCode)} ${code}`);
      return why ? [why] : [];
    });
    if (refused.length === 0) return records;
    const why =
      refused.slice(0, 3).join('; ') + (refused.length > 3 ? `; and ${refused.length - 3} more` : '');
    this.health?.reject(`DatahubPricelist: ${why}`, refused.length);
    throw malformed(PROVIDER_NAME, `implausible DatahubPricelist answer refused: ${why}`);
  }
}

/** DatahubPricelist's charge types. */
const CHARGE_KIND: Record<string, 'subscription' | 'fee' | 'tariff'> = {
  D01: 'subscription',
  D02: 'fee',
  D03: 'tariff',
};

const minDate = (a: string, b: string) => (a < b ? a : b);
const maxDate = (a: string, b: string) => (a > b ? a : b);
