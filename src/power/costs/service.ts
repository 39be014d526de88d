import { Big } from 'big.js';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { invalid, notFound } from '../../shared/refusal.js';
import { ProviderError } from '../../providers/http.js';
import {
  addDays,
  danishDate,
  danishDayBounds,
  danishDaySteps,
  toDanishIso,
} from '../../shared/danish-time.js';
import type { HouseholdStatus } from '../household/service.js';
import * as metering from '../metering/repository.js';
import { consumerHours, consumerQuarters } from '../prices/repository.js';
import type { ElectricityPriceService } from '../prices/service.js';

export type Resolution = 'hour' | 'quarter';
import { cheapestWindow, num, priceHour, type PricedHour, type Pricing } from './pricing.js';
import * as repo from './repository.js';
import type { Cheapest, ConsumerPriceItem, ConsumerPrices, CostDay, Costs } from './schemas.js';

/** A day's answer kept with its serialized bytes; only complete days are cached. */
export interface ConsumerPricesAnswer {
  body: ConsumerPrices;
  json: Buffer;
  complete: boolean;
}

export interface CostDeps {
  db: Db;
  clock: Clock;
  /** Its stored hours, the fetch of a day not stored, and the version of the charges its caches compare. */
  prices: ElectricityPriceService;
  household: () => HouseholdStatus;
  config: Pick<Config, 'priceArea' | 'supplierMarkupDkkKwh' | 'vatRate'>;
}

const CACHE_ENTRIES = 800;
export const MAX_COST_DAYS = 366;

export function consumerItem(h: PricedHour): ConsumerPriceItem {
  return {
    time_dk: toDanishIso(h.time),
    spot: num(h.spot)!,
    grid_tariff: num(h.grid_tariff),
    transmission_tariff: num(h.transmission_tariff),
    system_tariff: num(h.system_tariff),
    electricity_tax: num(h.electricity_tax),
    other_tariffs: num(h.other_tariffs)!,
    supplier_markup: num(h.supplier_markup)!,
    vat: num(h.vat),
    total: num(h.total),
  };
}

/** The consumer price of every hour (all charges and VAT), the household's costs, the cheapest hours. */
export class CostService {
  private readonly cache = new LRUCache<string, { version: number; answer: ConsumerPricesAnswer }>({
    max: CACHE_ENTRIES,
  });
  private readonly pricing: Pricing;

  constructor(private readonly deps: CostDeps) {
    this.pricing = { markup: deps.config.supplierMarkupDkkKwh, vatRate: deps.config.vatRate };
  }

  /** A complete day already answered with the current charges (see ElectricityPriceService.cachedElprice). */
  cachedConsumerPrices(
    date: string | undefined,
    area: string | undefined,
    resolution: Resolution = 'hour',
  ): ConsumerPricesAnswer | undefined {
    if (!this.deps.prices.charges.known) return undefined;
    const key = `${date ?? this.deps.prices.today()}|${area ?? this.deps.config.priceArea}|${resolution}`;
    const hit = this.cache.get(key);
    return hit && hit.version === this.deps.prices.chargesVersion ? hit.answer : undefined;
  }

  /** A day not stored is fetched as /api/elprice fetches it (shared, at most once a minute). */
  async consumerPrices(
    date: string | undefined,
    area: string | undefined,
    signal?: AbortSignal,
    resolution: Resolution = 'hour',
  ): Promise<ConsumerPricesAnswer> {
    await this.deps.prices.charges.need(signal);
    const hit = this.cachedConsumerPrices(date, area, resolution);
    if (hit) return hit;
    const day = date ?? this.deps.prices.today();
    const where = area ?? this.deps.config.priceArea;
    const key = `${day}|${where}|${resolution}`;
    const version = this.deps.prices.chargesVersion;
    await this.deps.prices.elprice(day, undefined, signal);
    const hours =
      resolution === 'hour' ? await this.pricedHours(day, where) : await this.pricedQuarters(day, where);
    const items = hours.map(consumerItem);
    const steps = danishDaySteps(day, resolution === 'hour' ? 60 : 15).length;
    const complete = items.length === steps && items.every((i) => i.total !== null);
    const status = this.deps.household();
    const body: ConsumerPrices = {
      date: day,
      area: where,
      resolution,
      complete,
      configured: status.configured,
      grid_company: status.grid_company && { ...status.grid_company, source: status.source ?? 'config' },
      note: status.configured ? null : status.detail,
      items,
    };
    const answer = { body, json: Buffer.from(JSON.stringify(body)), complete };
    if (complete) this.cache.set(key, { version, answer });
    return answer;
  }

  /** Inclusive Danish days, at most 366; every day of the range is listed, metered or not. */
  async costs(
    from: string,
    to: string,
    resolution: 'day' | 'hour' = 'day',
    signal?: AbortSignal,
  ): Promise<Costs> {
    if (to < from) throw invalid(`querystring.to: ${to} is before from (${from})`);
    if (addDays(from, MAX_COST_DAYS - 1) < to)
      throw invalid(
        `querystring.to: at most ${MAX_COST_DAYS} days from ${from}, that is ${addDays(from, MAX_COST_DAYS - 1)}`,
      );
    await this.deps.prices.charges.need(signal);
    const area = this.deps.config.priceArea;
    const params = {
      start: danishDayBounds(from).start,
      end: danishDayBounds(to).end,
      area,
      markup: this.pricing.markup,
      vatRate: this.pricing.vatRate,
    };
    const db = this.deps.db;
    let rows = await repo.costDays(db, params);
    const unpriced = rows.filter((r) => r.unpriced).map((r) => r.date);
    if (unpriced.length > 0) {
      // A metered day whose prices were never fetched is fetched now, as /api/elprice would.
      await this.deps.prices.fillDays(unpriced, signal);
      rows = await repo.costDays(db, params);
    }
    const stored = new Map(rows.map((r) => [r.date, r]));
    const byDay = new Map<string, NonNullable<CostDay['items']>>();
    if (resolution === 'hour')
      for (const h of await repo.costHours(db, params)) {
        const date = danishDate(h.start_at);
        const list = byDay.get(date) ?? byDay.set(date, []).get(date)!;
        const times = (a: string | null, b: string | null) =>
          a === null || b === null ? null : Number(new Big(a).times(b).toString());
        const n = (v: string | null) => (v === null ? null : Number(v));
        list.push({
          time_dk: toDanishIso(h.start_at),
          resolution_minutes: Number(h.minutes),
          consumption_kwh: n(h.consumption_kwh),
          production_kwh: n(h.production_kwh),
          solar_kwh: n(h.solar_kwh),
          spot: n(h.spot),
          total: n(h.total),
          cost_dkk: times(h.consumption_kwh, h.total),
          sold_value_dkk: times(h.production_kwh, h.spot),
          self_consumed_kwh: n(h.self_consumed_kwh),
        });
      }
    const sums = {
      consumption_kwh: new Big(0),
      cost_dkk: new Big(0),
      production_kwh: new Big(0),
      sold_value_dkk: new Big(0),
      self_consumed_kwh: null as Big | null,
      self_consumption_value_dkk: null as Big | null,
    };
    let hours = 0;
    let hoursPriced = 0;
    const days: CostDay[] = [];
    const missing: string[] = [];
    const n = (v: string | null | undefined) => (v == null ? null : Number(v));
    for (let date = from; date <= to; date = addDays(date, 1)) {
      const r = stored.get(date);
      // A day without a reading is not a day that cost nothing: its figures are null, never 0.
      const metered = r !== undefined && Number(r.hours) > 0;
      const day: CostDay = {
        date,
        complete:
          metered && isWholeDay(date, r.metered_minutes) && Number(r.hours) === Number(r.hours_priced),
        consumption_kwh: metered ? n(r.consumption_kwh) : null,
        // Consumption of which no interval has a price has no cost yet, rather than one of 0.
        cost_dkk: metered && Number(r.hours_priced) > 0 ? n(r.cost_dkk) : null,
        production_kwh: metered ? n(r.production_kwh) : null,
        sold_value_dkk: metered ? n(r.sold_value_dkk) : null,
        hours: Number(r?.hours ?? 0),
        hours_priced: Number(r?.hours_priced ?? 0),
        self_consumed_kwh: n(r?.self_consumed_kwh),
        self_consumption_value_dkk: n(r?.self_consumption_value_dkk),
      };
      if (resolution === 'hour') day.items = byDay.get(date) ?? [];
      days.push(day);
      if (!day.complete) missing.push(date);
      if (!r) continue;
      sums.consumption_kwh = sums.consumption_kwh.plus(r.consumption_kwh);
      sums.cost_dkk = sums.cost_dkk.plus(r.cost_dkk);
      sums.production_kwh = sums.production_kwh.plus(r.production_kwh);
      sums.sold_value_dkk = sums.sold_value_dkk.plus(r.sold_value_dkk);
      if (r.self_consumed_kwh !== null)
        sums.self_consumed_kwh = (sums.self_consumed_kwh ?? new Big(0)).plus(r.self_consumed_kwh);
      if (r.self_consumption_value_dkk !== null)
        sums.self_consumption_value_dkk = (sums.self_consumption_value_dkk ?? new Big(0)).plus(
          r.self_consumption_value_dkk,
        );
      hours += Number(r.hours);
      hoursPriced += Number(r.hours_priced);
    }
    // As a day's: nothing metered (or nothing priced) sums to unknown, never to 0.
    const metered = (v: Big) => (hours > 0 ? num(v) : null);
    return {
      from,
      to,
      area,
      days,
      total: {
        complete: missing.length === 0,
        missing_days: missing,
        consumption_kwh: metered(sums.consumption_kwh),
        cost_dkk: hoursPriced > 0 ? num(sums.cost_dkk) : null,
        production_kwh: metered(sums.production_kwh),
        sold_value_dkk: metered(sums.sold_value_dkk),
        hours,
        hours_priced: hoursPriced,
        self_consumed_kwh: num(sums.self_consumed_kwh),
        self_consumption_value_dkk: num(sums.self_consumption_value_dkk),
      },
    };
  }

  /**
   * The last Danish day before today whose consumption is metered whole (within the 62 days
   * before it), or null: the latest day a cost can be told for, as metering comes late.
   */
  async lastMeteredDay(): Promise<string | null> {
    const today = danishDate(this.deps.clock.now());
    const { start } = danishDayBounds(today);
    return metering.lastMeteredDay(this.deps.db, danishDayBounds(addDays(today, -62)).start, start);
  }

  /**
   * The `n` cheapest consecutive hours of a Danish day, or without a day from the current hour
   * to the last published one (tomorrow's hours once published).
   */
  async cheapest(
    n: number,
    date: string | undefined,
    area: string | undefined,
    signal?: AbortSignal,
  ): Promise<Cheapest> {
    // Ranked on spot alone while the charges load would be a window of other prices.
    await this.deps.prices.charges.need(signal);
    const where = area ?? this.deps.config.priceArea;
    let hours: PricedHour[];
    if (date !== undefined) {
      await this.deps.prices.elprice(date, undefined, signal);
      hours = await this.pricedHours(date, where);
    } else {
      const now = this.deps.clock.now();
      const today = danishDate(now);
      const tomorrow = addDays(today, 1);
      await this.deps.prices.elprice(today, undefined, signal);
      // Tomorrow is published from about 13:00; until then (or while the provider fails) it is simply absent.
      await this.deps.prices.elprice(tomorrow, undefined, signal).catch((e: unknown) => {
        if (!(e instanceof ProviderError)) throw e;
      });
      const hourStart = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
      const rows = await consumerHours(this.deps.db, hourStart, danishDayBounds(tomorrow).end, where);
      hours = rows.map((r) => priceHour(r, this.pricing));
    }
    const w = cheapestWindow(hours, n);
    if (!w)
      throw notFound(
        `no ${n} consecutive published hours for ${where} ${date ?? 'from the current hour on'} (${hours.length} stored)`,
      );
    return {
      area: where,
      hours: n,
      start_dk: toDanishIso(w.start),
      end_dk: toDanishIso(w.end),
      average_dkk_kwh: num(w.average)!,
      basis: w.basis,
    };
  }

  /** Every stored period of the day as quarter hours: an hourly row (before 2025-10-01) is four quarters at its price. */
  private async pricedQuarters(day: string, area: string): Promise<PricedHour[]> {
    const { start, end } = danishDayBounds(day);
    const rows = await consumerQuarters(this.deps.db, start, end, area);
    return rows.flatMap((r) =>
      Array.from({ length: r.minutes / 15 }, (_, i) =>
        priceHour({ ...r, time_dk: new Date(r.time_dk.getTime() + i * 900_000) }, this.pricing),
      ),
    );
  }

  private async pricedHours(day: string, area: string): Promise<PricedHour[]> {
    const { start, end } = danishDayBounds(day);
    const rows = await consumerHours(this.deps.db, start, end, area);
    return rows.map((r) => priceHour(r, this.pricing));
  }
}

/** Whether `minutes` of readings cover the whole Danish day (23, 24 or 25 hours). */
function isWholeDay(date: string, minutes: string): boolean {
  const { start, end } = danishDayBounds(date);
  return Number(minutes) === (end.getTime() - start.getTime()) / 60_000;
}
