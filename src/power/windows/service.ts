import type { Big } from 'big.js';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import { ProviderError } from '../../providers/http.js';
import type { Clock } from '../../shared/clock.js';
import {
  addDays,
  danishDate,
  danishDayBounds,
  danishDaySteps,
  toDanishIso,
} from '../../shared/danish-time.js';
import { invalid, notFound } from '../../shared/refusal.js';
import type { Co2Service } from '../co2/service.js';
import { meanGKwh } from '../co2/service.js';
import { num, priceHour, type Pricing } from '../costs/pricing.js';
import { consumerQuarters } from '../prices/repository.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { parseInstant } from './instants.js';
import type { CheapestWindow, GreenestWindow } from './schemas.js';
import { QUARTER_MS, asQuarters, ceilQuarter, floorQuarter, lowestRun } from './search.js';

export interface WindowDeps {
  db: Db;
  clock: Clock;
  /** The fetch of a day not stored (its read-through), and the version of the charges caches compare. */
  prices: Pick<ElectricityPriceService, 'elprice' | 'chargesVersion'>;
  co2: Pick<Co2Service, 'quarters' | 'needCurrent'>;
  config: Pick<Config, 'priceArea' | 'supplierMarkupDkkKwh' | 'vatRate'>;
}

/** A window's query: its length, and the instants it must start at or after and end by (ISO 8601 text). */
export interface WindowQuery {
  minutes: number;
  after?: string;
  before?: string;
  area?: string;
}

/** A quarter hour's prices, DKK/kWh: spot, and the all-in price incl. VAT (null while a charge is missing). */
export interface PricedQuarter {
  start: number;
  spot: Big;
  total: Big | null;
}

/** The longest span searched: a week of quarter hours. */
export const MAX_SPAN_MS = 7 * 86_400_000;
const DAY_ENTRIES = 100;
const ANSWER_ENTRIES = 1000;

interface Range {
  area: string;
  minutes: number;
  n: number;
  from: number;
  to: number;
}

/**
 * The cheapest and the greenest run of consecutive quarter hours of a given length, and the
 * priced quarter hours they are found in. Complete days are kept in memory with the charges'
 * version, and an answer over complete days is kept as its bytes.
 */
export class WindowService {
  private readonly days = new LRUCache<string, { version: number; quarters: PricedQuarter[] }>({
    max: DAY_ENTRIES,
  });
  private readonly answers = new LRUCache<string, Buffer>({ max: ANSWER_ENTRIES });
  /** Per count of days ahead: the Danish day it was found for, and the start of the day that far on. */
  private readonly horizons = new Map<number, { from: number; to: number; at: number }>();
  private readonly pricing: Pricing;

  constructor(private readonly deps: WindowDeps) {
    this.pricing = { markup: deps.config.supplierMarkupDkkKwh, vatRate: deps.config.vatRate };
  }

  /** An answer already given over complete days with the current charges; refuses bad input as cheapest() does. */
  cachedCheapest(q: WindowQuery): Buffer | undefined {
    return this.answers.get(this.key(this.range(q, 2)));
  }

  /**
   * The cheapest run: ranked on the all-in price incl. VAT when every quarter hour searched has
   * one, else on the spot price for all of them (`basis` says which). Prices of days not stored
   * are fetched as /api/elprice fetches them; tomorrow may simply not be published yet.
   */
  async cheapest(q: WindowQuery, signal?: AbortSignal): Promise<Buffer> {
    const r = this.range(q, 2);
    const key = this.key(r);
    const hit = this.answers.get(key);
    if (hit) return hit;
    const { quarters, complete } = await this.priceQuarters(r.area, r.from, r.to, signal);
    const basis = quarters.every((p) => p.total !== null) ? 'total' : 'spot';
    const slots = quarters.map((p) => ({ start: p.start, value: basis === 'total' ? p.total! : p.spot }));
    const run = lowestRun(slots, r.n);
    if (!run)
      throw notFound(
        `no ${r.minutes} minutes of consecutive published quarter hours for ${r.area} ${this.span(r)} (${slots.length} quarter hours stored)`,
      );
    const start = slots[run.first]!.start;
    const body: CheapestWindow = {
      area: r.area,
      minutes: r.minutes,
      start_dk: toDanishIso(new Date(start)),
      end_dk: toDanishIso(new Date(start + r.n * QUARTER_MS)),
      average_dkk_kwh: num(run.sum.div(r.n))!,
      basis,
    };
    const json = Buffer.from(JSON.stringify(body));
    if (complete) this.answers.set(key, json);
    return json;
  }

  /** The run of quarter hours with the lowest mean CO₂ intensity, realized or forecast. */
  async greenest(q: WindowQuery, signal?: AbortSignal): Promise<GreenestWindow> {
    const r = this.range(q, 3);
    const quarters =
      r.to > r.from ? await this.deps.co2.quarters(r.area, new Date(r.from), new Date(r.to), signal) : [];
    const slots = quarters.map((c) => ({ start: c.start.getTime(), value: c.sum }));
    const run = lowestRun(slots, r.n);
    if (slots.length === 0 && r.to > r.from && r.to > this.deps.clock.now().getTime())
      await this.deps.co2.needCurrent();
    if (!run)
      throw notFound(
        `no ${r.minutes} minutes of consecutive quarter hours with CO₂ values for ${r.area} ${this.span(r)} (${slots.length} quarter hours have values)`,
      );
    const start = slots[run.first]!.start;
    const inRun = quarters.slice(run.first, run.first + r.n);
    return {
      area: r.area,
      minutes: r.minutes,
      start_dk: toDanishIso(new Date(start)),
      end_dk: toDanishIso(new Date(start + r.n * QUARTER_MS)),
      average_g_kwh: Number(meanGKwh(run.sum, 3 * r.n).toString()),
      kind: inRun.every((c) => c.realized) ? 'realized' : 'forecast',
    };
  }

  /**
   * The priced quarter hours of [from, to), in order (an hourly price before 2025-10-01 is four
   * quarters at its price), and whether every day they lie in is stored completely. A day not
   * stored is fetched as /api/elprice does; a failure for a day after today (tomorrow, not yet
   * published) leaves it out.
   */
  async priceQuarters(
    area: string,
    from: number,
    to: number,
    signal?: AbortSignal,
  ): Promise<{ quarters: PricedQuarter[]; complete: boolean }> {
    if (to <= from) return { quarters: [], complete: true };
    const version = this.deps.prices.chargesVersion;
    const today = danishDate(this.deps.clock.now());
    const out: PricedQuarter[] = [];
    let complete = true;
    for (let day = danishDate(new Date(from)); day <= danishDate(new Date(to - 1)); day = addDays(day, 1)) {
      const key = `${day}|${area}`;
      let quarters = this.days.get(key);
      if (quarters?.version !== version) {
        const read = await this.readDay(day, area, today, signal);
        complete &&= read.complete;
        quarters = { version, quarters: read.quarters };
        if (read.complete) this.days.set(key, quarters);
      }
      for (const p of quarters.quarters) if (p.start >= from && p.start < to) out.push(p);
    }
    return { quarters: out, complete };
  }

  private async readDay(day: string, area: string, today: string, signal?: AbortSignal) {
    try {
      await this.deps.prices.elprice(day, undefined, signal);
    } catch (e) {
      if (!(e instanceof ProviderError) || day <= today) throw e;
    }
    const { start, end } = danishDayBounds(day);
    const rows = await consumerQuarters(this.deps.db, start, end, area);
    const quarters = asQuarters(rows).map((r) => {
      const p = priceHour(r, this.pricing);
      return { start: r.time_dk.getTime(), spot: p.spot, total: p.total };
    });
    return { quarters, complete: quarters.length === danishDaySteps(day, 15).length };
  }

  /**
   * The quarter hours searched: from `after` (default now) rounded up to a quarter hour, to
   * `before` rounded down to one, or without it to the end of the Danish day `days` − 1 after
   * today (the last day anything is published for). Contradicting input is refused naming the field.
   */
  private range(q: WindowQuery, days: number): Range {
    const minutes = q.minutes;
    if (!(Number.isInteger(minutes) && minutes >= 15 && minutes <= 720 && minutes % 15 === 0))
      throw invalid(`querystring.minutes: ${minutes} is not 15 to 720 in steps of 15`);
    const now = this.deps.clock.now();
    const after = q.after === undefined ? now : parseInstant(q.after, 'querystring.after');
    const before = q.before === undefined ? undefined : parseInstant(q.before, 'querystring.before');
    if (before !== undefined && before <= after)
      throw invalid(`querystring.before: ${q.before} is not later than after (${q.after ?? 'now'})`);
    const from = ceilQuarter(after.getTime());
    const to = before === undefined ? this.horizon(now, days) : floorQuarter(before.getTime());
    if (before !== undefined && to - from < minutes * 60_000)
      throw invalid(
        `querystring.minutes: ${minutes} minutes do not fit between after and before (${Math.max(0, to - from) / 60_000} minutes of whole quarter hours)`,
      );
    if (to - from > MAX_SPAN_MS)
      throw invalid(
        `${before === undefined ? 'querystring.after' : 'querystring.before'}: the search spans at most 7 days (${toDanishIso(new Date(from))} to ${toDanishIso(new Date(to))} is longer)`,
      );
    return { area: q.area ?? this.deps.config.priceArea, minutes, n: minutes / 15, from, to };
  }

  /**
   * The start of the Danish day `days` after the one holding `now`, found once per Danish day:
   * Luxon's zone arithmetic costs about a tenth of a millisecond, as much as a cached answer.
   */
  private horizon(now: Date, days: number): number {
    const t = now.getTime();
    const hit = this.horizons.get(days);
    if (hit && t >= hit.from && t < hit.to) return hit.at;
    const today = danishDate(now);
    const { start, end } = danishDayBounds(today);
    const at = danishDayBounds(addDays(today, days)).start.getTime();
    this.horizons.set(days, { from: start.getTime(), to: end.getTime(), at });
    return at;
  }

  private key(r: Range): string {
    return `${r.area}|${r.n}|${r.from}|${r.to}|${this.deps.prices.chargesVersion}`;
  }

  private span(r: Range): string {
    if (r.to <= r.from) return `after ${toDanishIso(new Date(r.from))}: nothing is published that late`;
    return `from ${toDanishIso(new Date(r.from))} to ${toDanishIso(new Date(r.to))}`;
  }
}
