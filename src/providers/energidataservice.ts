import { DateTime } from 'luxon';
import type { FeedHealth } from '../shared/health.js';
import { DANISH_ZONE, addDays, danishDayBounds } from '../shared/danish-time.js';
import type { OnBusy } from './budget.js';
import { HttpProvider, ProviderError, type ProviderDeps } from './http.js';
import { storableText, textRefusal } from '../shared/text.js';
import { chargeRefusal, dayAheadPriceInBounds } from './plausible.js';

export const PROVIDER_NAME = 'energidataservice';
export const PRICE_AREAS = ['DK1', 'DK2'] as const;
export type PriceArea = (typeof PRICE_AREAS)[number];

/** Elspotprices was discontinued after this Danish day; DayAheadPrices carries everything from it on. */
export const DAY_AHEAD_FROM = '2025-10-01';
const QUARTER_HOURS_FROM = new Date('2025-09-30T22:00:00Z');

/** One day-ahead price as the provider published it; prices are decimal strings in DKK/MWh. */
export interface SpotPrice {
  timeUtc: Date;
  area: PriceArea;
  minutes: 15 | 60;
  priceDkk: string;
  priceEur: string | null;
}

/** One grid tariff record of DatahubPricelist; prices are DKK/kWh strings for wall-clock hours 0–23. */
export interface TariffRecord {
  gln: string;
  chargeTypeCode: string;
  validFrom: string;
  validTo: string | null;
  hourly: string[];
  /** D01 subscription, D02 fee, D03 tariff; the short name (`Note`); the owner's name; PT1H, P1D or P1M. */
  chargeType?: string | null;
  note?: string | null;
  owner?: string | null;
  resolution?: string | null;
}

type Row = Record<string, unknown>;
interface Envelope {
  records: Row[];
}

const LOCAL_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

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
  ): Promise<SpotPrice[]> {
    const out: SpotPrice[] = [];
    if (from < DAY_AHEAD_FROM)
      out.push(...(await this.dataset('Elspotprices', from, minDate(to, DAY_AHEAD_FROM), signal, onBusy)));
    if (to > DAY_AHEAD_FROM)
      out.push(...(await this.dataset('DayAheadPrices', maxDate(from, DAY_AHEAD_FROM), to, signal, onBusy)));
    return this.trusted(out, from, to);
  }

  /** Drops, and counts in /health, rows outside the asked Danish days or the SDAC price limits. */
  private trusted(rows: SpotPrice[], from: string, to: string): SpotPrice[] {
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
  ): Promise<SpotPrice[]> {
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
      const code = textRefusal(r.chargeTypeCode);
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
    throw malformed(`implausible DatahubPricelist answer refused: ${why}`);
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

function malformed(what: string): ProviderError {
  return new ProviderError(PROVIDER_NAME, `malformed answer: ${what}`, { status: 200, transient: false });
}

function envelope(body: unknown): Envelope {
  if (!body || typeof body !== 'object' || !Array.isArray((body as Envelope).records))
    throw malformed('no records array');
  return body as Envelope;
}

function utcInstant(value: unknown, field: string): Date {
  if (typeof value !== 'string' || !LOCAL_TS.test(value)) throw malformed(`${field} "${String(value)}"`);
  return new Date(`${value}Z`);
}

/** A float of the wire as the exact decimal it prints as (740.951258 stays 740.951258). */
function decimal(value: unknown, field: string): string | null {
  if (value === undefined) throw malformed(`${field} missing`);
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw malformed(`${field} ${JSON.stringify(value)}`);
  return String(value);
}

function parseSpot(body: unknown, timeField: string, dkkField: string, eurField: string): SpotPrice[] {
  const parsed: Omit<SpotPrice, 'minutes'>[] = [];
  for (const r of envelope(body).records) {
    const area = r.PriceArea;
    if (typeof area !== 'string') throw malformed('PriceArea missing');
    if (!(PRICE_AREAS as readonly string[]).includes(area)) continue;
    const priceDkk = decimal(r[dkkField], dkkField);
    // Some old Elspotprices rows have no DKK price; such an hour is simply missing.
    if (priceDkk === null) continue;
    parsed.push({
      timeUtc: utcInstant(r[timeField], timeField),
      area: area as PriceArea,
      priceDkk,
      priceEur: decimal(r[eurField], eurField),
    });
  }
  return withResolution(parsed);
}

/**
 * The resolution of each row comes from the gaps to its area's neighbours, not from the date;
 * only a row with no neighbour within the hour falls back on the date of the 15-minute switch.
 */
function withResolution(rows: Omit<SpotPrice, 'minutes'>[]): SpotPrice[] {
  const out: SpotPrice[] = [];
  const QUARTER = 15 * 60_000;
  for (const area of PRICE_AREAS) {
    const mine = rows
      .filter((r) => r.area === area)
      .sort((a, b) => a.timeUtc.getTime() - b.timeUtc.getTime());
    mine.forEach((row, i) => {
      const t = row.timeUtc.getTime();
      const prevGap = i > 0 ? t - mine[i - 1]!.timeUtc.getTime() : Infinity;
      const nextGap = i + 1 < mine.length ? mine[i + 1]!.timeUtc.getTime() - t : Infinity;
      const isolated = prevGap > 4 * QUARTER && nextGap > 4 * QUARTER;
      const quarter =
        t % (4 * QUARTER) !== 0 ||
        prevGap === QUARTER ||
        nextGap === QUARTER ||
        (isolated && t >= QUARTER_HOURS_FROM.getTime());
      out.push({ ...row, minutes: quarter ? 15 : 60 });
    });
  }
  return out.sort((a, b) => a.timeUtc.getTime() - b.timeUtc.getTime() || a.area.localeCompare(b.area));
}

export function parseDayAheadPrices(body: unknown): SpotPrice[] {
  return parseSpot(body, 'TimeUTC', 'DayAheadPriceDKK', 'DayAheadPriceEUR');
}

export function parseElspotprices(body: unknown): SpotPrice[] {
  return parseSpot(body, 'HourUTC', 'SpotPriceDKK', 'SpotPriceEUR');
}

export function parseDatahubPricelist(body: unknown, gln: string): TariffRecord[] {
  return envelope(body).records.map((r) => {
    const code = r.ChargeTypeCode;
    if (typeof code !== 'string') throw malformed('ChargeTypeCode missing');
    const validFrom = r.ValidFrom;
    if (typeof validFrom !== 'string' || !LOCAL_TS.test(validFrom)) throw malformed('ValidFrom');
    const validTo = r.ValidTo ?? null;
    if (validTo !== null && (typeof validTo !== 'string' || !LOCAL_TS.test(validTo)))
      throw malformed('ValidTo');
    const first = decimal(r.Price1, 'Price1');
    if (first === null) throw malformed('Price1 missing');
    // A flat (P1D) record sets only Price1; it holds for every hour.
    const hourly = Array.from(
      { length: 24 },
      (_, i) => decimal(r[`Price${i + 1}`] ?? null, `Price${i + 1}`) ?? first,
    );
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    // The owner's name is only shown; the note and the code identify the charge (trustedCharges).
    const owner = text(r.ChargeOwner);
    return {
      gln: typeof r.GLN_Number === 'string' ? r.GLN_Number : gln,
      chargeType: text(r.ChargeType),
      note: text(r.Note),
      owner: owner === null ? null : storableText(owner),
      resolution: text(r.ResolutionDuration),
      chargeTypeCode: code,
      validFrom: normaliseLocal(validFrom),
      validTo: validTo === null ? null : normaliseLocal(validTo),
      hourly,
    };
  });
}

function normaliseLocal(ts: string): string {
  return DateTime.fromISO(ts, { zone: DANISH_ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
}
