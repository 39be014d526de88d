import Big from 'big.js';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/problem.js';
import type { EnergiDataService, TariffRecord } from '../../providers/energidataservice.js';
import { ProviderError } from '../../providers/http.js';
import { untilAborted } from '../../shared/abort.js';
import {
  addDays,
  danishDate,
  danishDayBounds,
  danishDaySteps,
  isCalendarDate,
  toDanishIso,
} from '../../shared/danish-time.js';
import * as repo from './repository.js';
import type { ElpriceDay, PricesDay } from './schemas.js';

/** Charge codes of the C-customer (household) tariff of known grid companies; `R` codes are discounts, added. */
export const TARIFF_CODES: Record<string, string[]> = {
  '5790000705689': ['DT_C_01', 'DC_C_01'],
  '5790000705184': ['30TR_C_ET'],
  '5790001089030': ['CD', 'CD R'],
  '5790000681327': ['RAH-C'],
  '5790000392261': ['C'],
  '5790000706686': ['46'],
  '5790000610099': ['TCL<100_02'],
  '5790000704842': ['C_FBTNTR_B', 'C_FBTNTR_B_R'],
};

/** An unpublished or failing day is not asked for again sooner than this (the provider blocks at 40 req/10 s). */
const RETRY_AFTER_MS = 60_000;

/** An answer ready to send: `json` is the serialized body, cached only when the day is complete. */
export interface Answer<T> {
  body: T;
  /** The serialized body as bytes, so that sending it costs no encoding. */
  json: Buffer;
  complete: boolean;
}

/** Complete days kept in memory per cache; the oldest entry goes first, so memory stays bounded. */
const CACHE_ENTRIES = 400;

function remember<T>(cache: Map<string, T>, key: string, value: T) {
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

interface Attempt {
  at: number;
  error: ProviderError | null;
}

export class PriceService {
  private readonly elpriceCache = new Map<string, Answer<ElpriceDay>>();
  private readonly pricesCache = new Map<string, Answer<PricesDay>>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly attempts = new Map<string, Attempt>();

  constructor(
    private readonly ctx: AppContext,
    private readonly provider: EnergiDataService,
  ) {}

  today(): string {
    return danishDate(this.ctx.clock.now());
  }

  /** `signal` is the request's: its caller stops waiting for a fetch the day shares with others. */
  async elprice(date: string | undefined, signal?: AbortSignal): Promise<Answer<ElpriceDay>> {
    // Only a valid date was ever cached, so a hit needs no further checking.
    const cached = date === undefined ? undefined : this.elpriceCache.get(date);
    if (cached) return cached;
    const day = this.checkDate(date);
    const known = this.elpriceCache.get(day);
    if (known) return known;
    const answer = await this.readThrough(day, () => this.readElprices(day), signal);
    if (answer.complete) remember(this.elpriceCache, day, answer);
    return answer;
  }

  async prices(
    date: string | undefined,
    area: string | undefined,
    signal?: AbortSignal,
  ): Promise<Answer<PricesDay>> {
    const cached = date === undefined ? undefined : this.pricesCache.get(`${date}|${area ?? ''}`);
    if (cached) return cached;
    const day = this.checkDate(date);
    const key = `${day}|${area ?? ''}`;
    const known = this.pricesCache.get(key);
    if (known) return known;
    const answer = await this.readThrough(day, () => this.readPrices(day, area), signal);
    if (answer.complete) remember(this.pricesCache, key, answer);
    return answer;
  }

  /** Fetches and stores a day unless it is stored completely; concurrent callers share one request. */
  async ensureDay(day: string): Promise<boolean> {
    if (await this.dayComplete(day)) return true;
    await this.fetchOnce(day);
    return this.dayComplete(day);
  }

  /** Fetches the Danish days [from, to) in one request per dataset, stores them and derives the hours. */
  async fetchRange(from: string, to: string): Promise<{ quarters: number; hours: number }> {
    const rows = await this.provider.spotPrices(from, to, this.ctx.shutdown);
    const start = danishDayBounds(from).start;
    const end = danishDayBounds(addDays(to, -1)).end;
    const inRange = rows.filter((r) => r.timeUtc >= start && r.timeUtc < end);
    // One transaction per range: a process killed mid-way leaves whole days or none, never half a day.
    return this.ctx.database.db.transaction().execute(async (trx) => {
      let quarters = 0;
      for (let i = 0; i < inRange.length; i += 2000)
        quarters += await repo.insertPrices(trx, inRange.slice(i, i + 2000));
      const hours = await repo.deriveElprices(trx, start, end, this.ctx.config.gridCompanyGln);
      return { quarters, hours };
    });
  }

  /** Loads the configured grid company's tariff periods from DatahubPricelist. */
  async refreshTariffs(): Promise<number> {
    const gln = this.ctx.config.gridCompanyGln;
    const codes = TARIFF_CODES[gln];
    if (!codes) {
      this.ctx.log.warn({ gln }, 'no known tariff codes for this grid company; tariffs not refreshed');
      return 0;
    }
    const periods = combineTariffs(await this.provider.tariffs(gln, codes, this.ctx.shutdown), codes);
    if (periods.length === 0) return 0;
    await this.ctx.database.db.transaction().execute(async (trx) => {
      await repo.deleteTariffPeriods(trx, gln, 'DatahubPricelist');
      for (const p of periods) await repo.upsertTariffPeriod(trx, { ...p, source: 'DatahubPricelist' });
      if ((await repo.fillMissingTariffs(trx, gln)) > 0) {
        this.elpriceCache.clear();
        this.pricesCache.clear();
      }
    });
    return periods.length;
  }

  private checkDate(date: string | undefined): string {
    if (date === undefined) return this.today();
    if (!isCalendarDate(date))
      throw badRequest(`querystring.date: "${date}" is not a calendar date (YYYY-MM-DD)`);
    return date;
  }

  /**
   * Answers from stored rows; a day not stored completely is fetched first, at most once a
   * minute, and never beyond tomorrow, which the auction has not priced yet.
   */
  private async readThrough<T extends { complete: boolean; items: unknown[] }>(
    day: string,
    read: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<Answer<T>> {
    let body = await read();
    if (!body.complete && day <= addDays(this.today(), 1)) {
      const last = this.attempts.get(day);
      const recent = last && this.ctx.clock.now().getTime() - last.at < RETRY_AFTER_MS;
      let error = recent ? last.error : null;
      if (!recent) {
        try {
          await untilAborted(this.fetchOnce(day), signal);
        } catch (e) {
          if (!(e instanceof ProviderError)) throw e;
          error = e;
        }
        body = await read();
      }
      if (error && body.items.length === 0) throw error;
    }
    return { body, json: Buffer.from(JSON.stringify(body)), complete: body.complete };
  }

  private fetchOnce(day: string): Promise<void> {
    let pending = this.inflight.get(day);
    if (!pending) {
      pending = this.fetchRange(day, addDays(day, 1))
        .then(
          () => void this.attempts.set(day, { at: this.ctx.clock.now().getTime(), error: null }),
          (e: unknown) => {
            if (e instanceof ProviderError)
              this.attempts.set(day, { at: this.ctx.clock.now().getTime(), error: e });
            throw e;
          },
        )
        .finally(() => this.inflight.delete(day));
      this.inflight.set(day, pending);
    }
    return pending;
  }

  private async dayComplete(day: string): Promise<boolean> {
    return (await this.readElprices(day)).complete;
  }

  private async readElprices(day: string): Promise<ElpriceDay> {
    const { start, end } = danishDayBounds(day);
    const rows = await repo.elpricesBetween(this.ctx.database.db, start, end);
    const hours = danishDaySteps(day, 60).length;
    return {
      date: day,
      complete: rows.length === hours * 2,
      hours,
      items: rows.map((r) => ({
        time_dk: toDanishIso(r.time_dk),
        price_area: r.price_area,
        price_dkk: Number(r.price_dkk),
        tariff_dkk: r.tariff_dkk === null ? null : Number(r.tariff_dkk),
        total_dkk: r.total_dkk === null ? null : Number(r.total_dkk),
      })),
    };
  }

  private async readPrices(day: string, area: string | undefined): Promise<PricesDay> {
    const { start, end } = danishDayBounds(day);
    const rows = await repo.pricesBetween(this.ctx.database.db, start, end, area);
    const dayMinutes = (end.getTime() - start.getTime()) / 60_000;
    const covered = rows.reduce((sum, r) => sum + r.resolution_minutes, 0);
    return {
      date: day,
      area: area ?? null,
      complete: covered === dayMinutes * (area ? 1 : 2),
      items: rows.map((r) => ({
        time_dk: toDanishIso(r.time_dk),
        price_area: r.price_area,
        resolution_minutes: r.resolution_minutes,
        price_dkk: Number(r.price_dkk),
        price_eur: r.price_eur === null ? null : Number(r.price_eur),
      })),
    };
  }
}

/**
 * Cuts the records into consecutive periods at every ValidFrom and ValidTo: each period takes
 * the base tariff valid through it (codes are listed newest first) plus every discount code
 * (suffix R) valid through it, which DSOs publish with their own dates. Prices become øre/kWh.
 */
export function combineTariffs(records: TariffRecord[], codes: string[]): TariffRecord[] {
  const isDiscount = (code: string) => /[ _]R$/.test(code);
  const rank = (r: TariffRecord) => codes.indexOf(r.chargeTypeCode);
  const base = records.filter((r) => !isDiscount(r.chargeTypeCode)).sort((a, b) => rank(a) - rank(b));
  const discounts = records.filter((r) => isDiscount(r.chargeTypeCode));
  const points = [
    ...new Set(records.flatMap((r) => (r.validTo ? [r.validFrom, r.validTo] : [r.validFrom]))),
  ].sort();
  const out: TariffRecord[] = [];
  points.forEach((from, i) => {
    const covers = (r: TariffRecord) => r.validFrom <= from && (r.validTo === null || r.validTo > from);
    const main = base.find(covers);
    if (!main) return;
    const extra = discounts.filter(covers);
    out.push({
      gln: main.gln,
      chargeTypeCode: [main, ...extra].map((r) => r.chargeTypeCode).join('+'),
      validFrom: from,
      validTo: points[i + 1] ?? null,
      hourly: main.hourly.map((v, h) =>
        extra
          .reduce((sum, d) => sum.plus(d.hourly[h] ?? '0'), Big(v))
          .times(100)
          .toString(),
      ),
    });
  });
  return out;
}
