import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { invalid } from '../../shared/refusal.js';
import { DAYS, isDayIn } from '../../shared/days.js';
import { BudgetExhausted, type OnBusy } from '../../providers/budget.js';
import type { EnergiDataService, PriceArea } from '../../providers/energidataservice.js';
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
import { ChargesReadiness } from '../household/readiness.js';
import * as repo from './repository.js';
import type { ElpriceDay, PricesDay } from './schemas.js';

/** An unpublished or failing day is not asked for again sooner than this (the provider blocks at 40 req/10 s). */
const RETRY_AFTER_MS = 60_000;

/** A day's answer serialized once, so that sending it costs no encoding; cached only when complete. */
export interface SerializedDay {
  json: Buffer;
  complete: boolean;
}

/** Complete days kept in memory per cache; the least recently used goes first, so memory stays bounded. */
const CACHE_ENTRIES = 400;
/** Days whose last fetch is remembered (for RETRY_AFTER_MS); the least recently used goes first. */
const ATTEMPT_ENTRIES = 1000;

export interface PriceDeps {
  db: Db;
  clock: Clock;
  /** Aborted at shutdown: a fetch in flight stops. */
  shutdown: AbortSignal;
  provider: EnergiDataService;
  /** Whether the household's charges its hours carry are known; without one they always are. */
  charges?: ChargesReadiness;
}

interface Attempt {
  at: number;
  error: ProviderError | null;
}

export class ElectricityPriceService {
  private readonly elpriceCache = new LRUCache<string, SerializedDay>({ max: CACHE_ENTRIES });
  private readonly pricesCache = new LRUCache<string, SerializedDay>({ max: CACHE_ENTRIES });
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly attempts = new LRUCache<string, Attempt>({ max: ATTEMPT_ENTRIES });
  /** Grows whenever stored hours gain or change a tariff or charge: caches of derived answers compare it. */
  chargesVersion = 0;
  /** The hours' tariffs are the household's: answers that carry them wait until those are known. */
  readonly charges: ChargesReadiness;
  private readonly chargeListeners = new Set<() => void>();

  constructor(private readonly deps: PriceDeps) {
    this.charges = deps.charges ?? new ChargesReadiness({ clock: deps.clock });
  }

  /** The household's charges are asked of the same provider, under its one call budget. */
  get provider(): EnergiDataService {
    return this.deps.provider;
  }

  today(): string {
    return danishDate(this.deps.clock.now());
  }

  /**
   * A complete day already answered, without touching the request: a route asks this first so
   * that a cached answer does not make the request's deadline signal (an AbortController).
   * Only a valid date was ever cached, so a hit needs no further checking.
   */
  cachedElprice(date: string | undefined, area?: PriceArea): SerializedDay | undefined {
    if (date === undefined || !this.charges.known) return undefined;
    return this.elpriceCache.get(area ? `${date}|${area}` : date);
  }

  cachedPrices(date: string | undefined, area: string | undefined): SerializedDay | undefined {
    return date === undefined ? undefined : this.pricesCache.get(`${date}|${area ?? ''}`);
  }

  /**
   * The hours of one area, or of both when `area` is absent, with the household's tariffs (so
   * only once those are known). `signal` is the request's: its caller stops waiting for a fetch
   * the day shares with others.
   */
  async elprice(
    date: string | undefined,
    area: PriceArea | undefined,
    signal?: AbortSignal,
  ): Promise<SerializedDay> {
    await this.charges.need(signal);
    const cached = this.cachedElprice(date, area);
    if (cached) return cached;
    const day = this.checkDate(date);
    const key = area ? `${day}|${area}` : day;
    const known = this.elpriceCache.get(key);
    if (known) return known;
    const answer = await this.readThrough(day, () => this.readElprices(day, area), signal);
    if (answer.complete) this.elpriceCache.set(key, answer);
    return answer;
  }

  async prices(
    date: string | undefined,
    area: string | undefined,
    signal?: AbortSignal,
  ): Promise<SerializedDay> {
    const cached = this.cachedPrices(date, area);
    if (cached) return cached;
    const day = this.checkDate(date);
    const key = `${day}|${area ?? ''}`;
    const known = this.pricesCache.get(key);
    if (known) return known;
    const answer = await this.readThrough(day, () => this.readPrices(day, area), signal);
    if (answer.complete) this.pricesCache.set(key, answer);
    return answer;
  }

  /**
   * Fetches and stores a day unless it is stored completely; concurrent callers share one
   * request. A background caller: it waits for the provider's budget, and when it joined a
   * client's fetch that the budget refused, it fetches again, waiting.
   */
  async ensureDay(day: string): Promise<boolean> {
    if (await this.dayComplete(day)) return true;
    try {
      await this.fetchOnce(day, 'wait');
    } catch (e) {
      if (!(e instanceof BudgetExhausted)) throw e;
      await this.fetchOnce(day, 'wait');
    }
    return this.dayComplete(day);
  }

  /**
   * Fetches the Danish days [from, to) in one request per dataset, stores them and derives the
   * hours. Waits for the provider's budget unless `onBusy` is 'refuse' (a client's request).
   */
  async fetchRange(
    from: string,
    to: string,
    onBusy: OnBusy = 'wait',
  ): Promise<{ quarters: number; hours: number }> {
    const rows = await this.deps.provider.spotPrices(from, to, this.deps.shutdown, onBusy);
    const start = danishDayBounds(from).start;
    const end = danishDayBounds(addDays(to, -1)).end;
    const inRange = rows.filter((r) => r.timeUtc >= start && r.timeUtc < end);
    // One transaction per range: a process killed mid-way leaves whole days or none, never half a day.
    return this.deps.db.transaction().execute(async (trx) => {
      const quarters = await repo.insertPrices(trx, inRange);
      const hours = await repo.deriveElprices(trx, start, end);
      return { quarters, hours };
    });
  }

  /**
   * Stored hours took other tariffs (or the charges became known): cached days are dropped,
   * derived caches compare the version, and listeners (the MQTT publisher) read again.
   */
  chargesChanged(): void {
    this.elpriceCache.clear();
    this.pricesCache.clear();
    this.chargesVersion++;
    for (const listener of this.chargeListeners) listener();
  }

  /** Called after every chargesChanged(); returns the way to stop listening. */
  onChargesChanged(listener: () => void): () => void {
    this.chargeListeners.add(listener);
    return () => this.chargeListeners.delete(listener);
  }

  /**
   * Fetches the given days that are not stored, as a client's request does (refused, never
   * queued, when the provider's budget is spent; a day asked for within the last minute is not
   * asked again): consecutive days in one request, at most 31. Stops at the first failure;
   * whatever is still missing stays missing, and the caller counts it.
   */
  async fillDays(days: string[], signal?: AbortSignal): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const tomorrow = addDays(this.today(), 1);
    const due = [...new Set(days)]
      .sort()
      .filter((d) => d <= tomorrow && !(now - (this.attempts.get(d)?.at ?? -Infinity) < RETRY_AFTER_MS));
    const runs: string[][] = [];
    for (const d of due) {
      const run = runs.at(-1);
      if (run && addDays(run.at(-1)!, 1) === d && run.length < 31) run.push(d);
      else runs.push([d]);
    }
    for (const run of runs) {
      try {
        await untilAborted(this.fetchRange(run[0]!, addDays(run.at(-1)!, 1), 'refuse'), signal);
        for (const d of run) this.attempts.set(d, { at: now, error: null });
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        if (!(e instanceof BudgetExhausted)) for (const d of run) this.attempts.set(d, { at: now, error: e });
        return;
      }
    }
  }

  /** The route's schema checks the same; this keeps a day before the prices begin from ever reaching the provider. */
  private checkDate(date: string | undefined): string {
    if (date === undefined) return this.today();
    if (!isCalendarDate(date))
      throw invalid(`querystring.date: "${date}" is not a calendar date (YYYY-MM-DD)`);
    if (!isDayIn(DAYS.prices, date))
      throw invalid(`querystring.date: ${date} is not from ${DAYS.prices.min} to ${DAYS.prices.max}`);
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
  ): Promise<SerializedDay> {
    let body = await read();
    if (!body.complete && day <= addDays(this.today(), 1)) {
      const last = this.attempts.get(day);
      const recent = last && this.deps.clock.now().getTime() - last.at < RETRY_AFTER_MS;
      let error = recent ? last.error : null;
      if (!recent) {
        try {
          // A client's request: refused (503, Retry-After) rather than queued when the budget is spent.
          await untilAborted(this.fetchOnce(day, 'refuse'), signal);
        } catch (e) {
          if (!(e instanceof ProviderError)) throw e;
          error = e;
        }
        body = await read();
      }
      if (error && body.items.length === 0) throw error;
    }
    return { json: Buffer.from(JSON.stringify(body)), complete: body.complete };
  }

  private fetchOnce(day: string, onBusy: OnBusy): Promise<void> {
    let pending = this.inflight.get(day);
    if (!pending) {
      const at = () => this.deps.clock.now().getTime();
      pending = this.fetchRange(day, addDays(day, 1), onBusy)
        .then(
          () => void this.attempts.set(day, { at: at(), error: null }),
          (e: unknown) => {
            // A refused budget asked nothing of the provider: nothing to remember about the day.
            if (e instanceof ProviderError && !(e instanceof BudgetExhausted))
              this.attempts.set(day, { at: at(), error: e });
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

  private async readElprices(day: string, area?: PriceArea): Promise<ElpriceDay> {
    const { start, end } = danishDayBounds(day);
    // A day is at most 50 rows: the one query of both areas serves one area too.
    const rows = (await repo.elpricesBetween(this.deps.db, start, end)).filter(
      (r) => area === undefined || r.price_area === area,
    );
    const hours = danishDaySteps(day, 60).length;
    return {
      date: day,
      complete: rows.length === hours * (area ? 1 : 2),
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
    const rows = await repo.pricesBetween(this.deps.db, start, end, area);
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
