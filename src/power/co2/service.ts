import { Big } from 'big.js';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import type { Co2Provider } from '../../providers/energidataservice-co2.js';
import { ProviderError } from '../../providers/http.js';
import { BudgetExhausted } from '../../providers/budget.js';
import { untilAborted } from '../../shared/abort.js';
import { unavailable } from '../../shared/refusal.js';
import type { Clock } from '../../shared/clock.js';
import {
  addDays,
  danishDate,
  danishDayBounds,
  danishDaySteps,
  toDanishIso,
} from '../../shared/danish-time.js';
import * as repo from './repository.js';
import type { Co2Day } from './schemas.js';

export type Co2Resolution = 'quarter' | 'hour';

/** An interval whose every 5-minute value is known. */
export interface Co2Interval {
  start: Date;
  /** the sum of its 5-minute values, g/kWh, exact */
  sum: Big;
  /** how many there are: 3 in a quarter hour, 12 in an hour */
  values: number;
  realized: boolean;
}

export interface Co2Deps {
  db: Db;
  clock: Clock;
  provider: Pick<Co2Provider, 'emissions'>;
  /** Aborted at shutdown: a fetch in flight stops. */
  shutdown: AbortSignal;
  config: Pick<Config, 'priceArea'>;
}

const FIVE_MINUTES_MS = 300_000;
const QUARTER_MS = 900_000;
/** A gap in the realized values is filled from at most this far back. */
const REALIZED_BACKFILL_MS = 7 * 86_400_000;
/** A past day is asked of the provider at most once a minute. */
const RETRY_AFTER_MS = 60_000;

/** The mean of `values` 5-minute values summing to `sum`: g/kWh to 2 decimals, half away from zero. */
export function meanGKwh(sum: Big, values: number): Big {
  return sum.div(values).round(2, Big.roundHalfUp);
}

/**
 * The CO₂ intensity of the grid: the realized values and the prognosis as issued, fetched by the
 * scheduler; a past day not stored is fetched when asked for.
 */
export class Co2Service {
  private readonly attempts = new LRUCache<string, { at: number; error: ProviderError | null }>({
    max: 1000,
  });
  private readonly inflight = new Map<string, Promise<void>>();

  constructor(private readonly deps: Co2Deps) {}

  /** Realized values from the last stored one (at most 7 days back; yesterday's start at first) up to now. */
  async refreshRealized(): Promise<{ stored: number; through: Date | null }> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const to = new Date(Math.floor(now.getTime() / FIVE_MINUTES_MS) * FIVE_MINUTES_MS);
    const last = await repo.realizedThrough(db);
    const from =
      last === null
        ? danishDayBounds(addDays(danishDate(now), -1)).start
        : new Date(Math.max(last.getTime(), to.getTime() - REALIZED_BACKFILL_MS));
    if (from >= to) return { stored: 0, through: last };
    const rows = await this.deps.provider.emissions('CO2Emis', from, to, this.deps.shutdown, 'wait');
    const stored = await repo.upsertRealized(db, now, rows);
    return { stored, through: await repo.realizedThrough(db) };
  }

  /** The prognosis as issued now, from the current quarter hour to the end of the day after tomorrow. */
  async refreshForecast(): Promise<{ stored: number; through: Date | null }> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const from = new Date(Math.floor(now.getTime() / QUARTER_MS) * QUARTER_MS);
    const to = danishDayBounds(addDays(danishDate(now), 3)).start;
    const rows = await this.deps.provider.emissions('CO2EmisProg', from, to, this.deps.shutdown, 'wait');
    const stored = await repo.insertForecast(db, now, rows);
    return { stored, through: await repo.forecastThrough(db) };
  }

  /** The intervals of a Danish day that have every 5-minute value, realized or forecast. */
  async day(
    date: string | undefined,
    area: string | undefined,
    resolution: Co2Resolution = 'quarter',
    signal?: AbortSignal,
  ): Promise<Co2Day> {
    const today = danishDate(this.deps.clock.now());
    const day = date ?? today;
    const where = area ?? this.deps.config.priceArea;
    const minutes = resolution === 'hour' ? 60 : 15;
    const { start, end } = danishDayBounds(day);
    if (day < today) await this.fillPast(day, where, signal);
    const rows = await repo.intervals(this.deps.db, where, start, end, minutes);
    const items = rows
      .filter((r) => r.values === minutes / 5)
      .map((r) => ({
        time_dk: toDanishIso(r.start_at),
        g_kwh: Number(meanGKwh(new Big(r.sum_g), r.values).toString()),
        kind: r.realized ? ('realized' as const) : ('forecast' as const),
      }));
    return {
      date: day,
      area: where,
      resolution,
      complete: items.length === danishDaySteps(day, minutes).length,
      items,
    };
  }

  /**
   * Refuses while no CO₂ value from now on is stored (a first start before the feed's first round,
   * or its provider down since): the answer is not there yet, rather than an empty one.
   */
  async needCurrent(): Promise<void> {
    const { db, clock } = this.deps;
    const [realized, forecast] = await Promise.all([repo.realizedThrough(db), repo.forecastThrough(db)]);
    const latest = Math.max(realized?.getTime() ?? 0, forecast?.getTime() ?? 0);
    if (latest <= clock.now().getTime())
      throw unavailable(
        'no CO₂ value from now on is stored yet: the CO₂ feed has not brought them (feeds.co2 in /health)',
        60,
      );
  }

  /**
   * The quarter hours of [start, end) that have all three 5-minute values, in order. Past Danish
   * days in the range not stored are fetched first (at most 8 days are asked for).
   */
  async quarters(area: string, start: Date, end: Date, signal?: AbortSignal): Promise<Co2Interval[]> {
    const today = danishDate(this.deps.clock.now());
    const last = danishDate(new Date(end.getTime() - 1));
    for (let d = danishDate(start), n = 0; d <= last && d < today && n < 8; d = addDays(d, 1), n++)
      await this.fillPast(d, area, signal);
    const rows = await repo.intervals(this.deps.db, area, start, end, 15);
    return rows
      .filter((r) => r.values === 3)
      .map((r) => ({ start: r.start_at, sum: new Big(r.sum_g), values: r.values, realized: r.realized }));
  }

  /**
   * A past day without all its realized values is fetched, as a client's request (refused, not
   * queued, when the provider's budget is spent), at most once a minute; concurrent askers share
   * the fetch. A failure is thrown only when nothing of the day is stored.
   */
  private async fillPast(day: string, area: string, signal?: AbortSignal): Promise<void> {
    const { start, end } = danishDayBounds(day);
    const expected = (end.getTime() - start.getTime()) / FIVE_MINUTES_MS;
    const have = await repo.countRealized(this.deps.db, area, start, end);
    if (have >= expected) return;
    const last = this.attempts.get(day);
    const now = this.deps.clock.now().getTime();
    let error = last && now - last.at < RETRY_AFTER_MS ? last.error : null;
    if (!last || now - last.at >= RETRY_AFTER_MS) {
      try {
        await untilAborted(this.fetchDay(day, start, end), signal);
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        error = e;
      }
    }
    if (error && (await repo.countRealized(this.deps.db, area, start, end)) === 0) throw error;
  }

  private fetchDay(day: string, start: Date, end: Date): Promise<void> {
    let pending = this.inflight.get(day);
    if (!pending) {
      const at = () => this.deps.clock.now().getTime();
      pending = this.deps.provider
        .emissions('CO2Emis', start, end, this.deps.shutdown, 'refuse')
        .then(async (rows) => {
          await repo.upsertRealized(this.deps.db, this.deps.clock.now(), rows);
          this.attempts.set(day, { at: at(), error: null });
        })
        .catch((e: unknown) => {
          // A refused budget asked nothing of the provider: nothing to remember about the day.
          if (e instanceof ProviderError && !(e instanceof BudgetExhausted))
            this.attempts.set(day, { at: at(), error: e });
          throw e;
        })
        .finally(() => this.inflight.delete(day));
      this.inflight.set(day, pending);
    }
    return pending;
  }
}
