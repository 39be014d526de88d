import { ExponentialBackoff, type IBackoffFactory } from 'cockatiel';
import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { Db } from '../../db/schema.js';
import type { Job } from '../../jobs/job.js';
import { Wake } from '../../jobs/wake.js';
import { HaAuthInvalid, HaCommandError, HaConnection } from '../../providers/home-assistant.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import { METERING_SYNCED_CHANNEL } from '../metering/repository.js';
import * as repo from './repository.js';
import { batches, importCommand, STATISTICS, utcHour, withSums } from './statistics.js';

export interface HaStatisticsOptions {
  /** Hours in one import command (one statistic's). */
  batchHours: number;
  /** How often the leader looks for hours changed by a late price or charge, besides after every sync. */
  recheckMs: number;
  /** After a metering sync is heard, the wait for the syncs of the following days before a round. */
  settleMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** For connecting and authenticating, and for each command's answer. */
  timeoutMs: number;
}

export const DEFAULT_HA_STATISTICS_OPTIONS: HaStatisticsOptions = {
  batchHours: 1_000,
  // a look over the whole history takes about as long as /api/costs of it (docs/benchmarks.md)
  recheckMs: 6 * 3_600_000,
  settleMs: 2_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 300_000,
  timeoutMs: 10_000,
};

export interface HaStatisticsDeps {
  db: Db;
  database: Pick<Database, 'listen'>;
  clock: Clock;
  log: Logger;
  health: FeedHealth;
  shutdown: AbortSignal;
  homeAssistant: { url: string; token: string };
  pricing: repo.StatisticsPricing;
  /** Largest message taken from Home Assistant. */
  maxBytes: number;
  /** Fetches the day-ahead prices of metered days never fetched, as /api/costs does (ElectricityPriceService.fillDays). */
  fillDays: (days: string[], signal?: AbortSignal) => Promise<void>;
}

/** What one round wrote. */
export interface RoundResult {
  /** Hours written, every statistic's together */
  hours: number;
  /** Messages sent to Home Assistant, the auth message included; 0 when nothing was due */
  messages: number;
}

/**
 * Writes the metered hours, their cost and the production's value to Home Assistant as
 * long-term external statistics, while this process leads: once at start, after every metering
 * sync that stored readings (heard as a notification, from any process), and every recheckMs for
 * a price or charge that came late. Each round connects, writes what is pending in batches,
 * records each batch once Home Assistant answered it, and disconnects. Home Assistant down is
 * tried again with backoff; a token it refuses stops the writer until a restart with another.
 */
export class HaStatisticsService {
  private readonly wake = new Wake();
  private readonly cleanups: (() => unknown)[] = [];
  private backoff: IBackoffFactory<unknown>;
  private retryInMs = 0;
  private rounds: Promise<unknown> = Promise.resolve();
  private refused: HaAuthInvalid | null = null;
  /** Whether a round has reached Home Assistant since the start: until then a round connects even with nothing due. */
  private reached = false;
  /** Whether the planner's statistics are to be gathered before the next round (at first, and after hours were written). */
  private analyze = true;

  constructor(
    private readonly deps: HaStatisticsDeps,
    private readonly opts: HaStatisticsOptions = DEFAULT_HA_STATISTICS_OPTIONS,
  ) {
    this.backoff = this.newBackoff();
  }

  async start(): Promise<void> {
    this.cleanups.push(await this.deps.database.listen(METERING_SYNCED_CHANNEL, () => this.wake.poke()));
  }

  async stop(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c();
  }

  /**
   * The writer, a job of the holder of the metering lock: a round at once, after every sync heard
   * (and the settling wait), every recheckMs, and with backoff while Home Assistant is away.
   */
  job(): Job {
    return {
      name: 'ha-statistics',
      schedule: {
        everyMs: this.opts.recheckMs,
        wake: this.wake,
        settleMs: this.opts.settleMs,
        afterFailure: () => this.retryInMs,
      },
      lock: 'meteringSync',
      health: this.deps.health,
      standby: 'standby: another process holds the metering lock and writes the statistics',
      leading: 'starting',
      round: (signal) => this.lead(signal),
      // the round has said it in the feed
      failed: () => {},
    };
  }

  /**
   * Writes every pending hour now (rounds never overlap). Throws HaAuthInvalid when the token is
   * refused, HaUnreachable or HaCommandError when Home Assistant cannot be reached or refuses a
   * command: what was answered before stays recorded.
   */
  writeNow(signal: AbortSignal = this.deps.shutdown): Promise<RoundResult> {
    const round = this.rounds.then(() => this.round(signal));
    this.rounds = round.catch(() => {});
    return round;
  }

  private async lead(signal: AbortSignal): Promise<void | 'done'> {
    const { health, log, clock } = this.deps;
    if (this.refused) return 'done';
    try {
      const r = await this.writeNow(signal);
      this.backoff = this.newBackoff();
      if (r.hours > 0) log.info(r, 'ha-statistics: hours written to Home Assistant');
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof HaAuthInvalid) {
        this.refuse(e);
        return 'done';
      }
      health.failure(e, clock.now());
      if (e instanceof HaCommandError) {
        // the same command would be refused again: not before the next sync or the hourly look
        health.detail = `${e.message}; tried again after the next metering sync, or in 6 hours`;
        log.warn({ code: e.code, detail: e.detail }, 'ha-statistics: Home Assistant refused an import');
        return;
      }
      const step = this.backoff.next(undefined);
      this.backoff = step;
      this.retryInMs = step.duration;
      health.detail = `${(e as Error).message}; trying again in ${Math.ceil(this.retryInMs / 1000)} s`;
      throw e;
    }
  }

  private newBackoff(): IBackoffFactory<unknown> {
    return new ExponentialBackoff({
      initialDelay: this.opts.initialBackoffMs,
      maxDelay: this.opts.maxBackoffMs,
    });
  }

  /** Said once, in /health and the log; the same token would be refused again, and count as a failed login. */
  private refuse(e: HaAuthInvalid): void {
    this.refused = e;
    this.deps.health.failure(e, this.deps.clock.now());
    this.deps.health.detail =
      'stopped: make a new long-lived access token in Home Assistant (an administrator’s), set HA_TOKEN and restart';
    this.deps.log.error({ feed: 'ha-statistics', reason: e.reason }, `ha-statistics: ${e.message}; stopped`);
  }

  private async round(signal: AbortSignal): Promise<RoundResult> {
    const { db, health, clock } = this.deps;
    signal.throwIfAborted();
    const pending = await this.pending(signal);
    if (pending.length === 0 && this.reached) {
      health.success(clock.now());
      health.detail = await this.summary();
      return { hours: 0, messages: 0 };
    }
    signal.throwIfAborted();
    const conn = await HaConnection.open({
      url: this.deps.homeAssistant.url,
      token: this.deps.homeAssistant.token,
      timeoutMs: this.opts.timeoutMs,
      maxBytes: this.deps.maxBytes,
      signal,
    });
    const onAbort = () => conn.close();
    signal.addEventListener('abort', onAbort, { once: true });
    let hours = 0;
    try {
      this.reached = true;
      for (const statistic of STATISTICS) {
        const own = pending.filter((p) => p.statistic_id === statistic.id);
        if (own.length === 0) continue;
        const rows = withSums(
          own[0]!.sum_before ?? '0',
          own.map((p) => ({ start: p.start_at, state: p.state })),
        );
        for (const batch of batches(rows, this.opts.batchHours)) {
          health.detail = `writing ${statistic.id} from ${utcHour(batch[0]!.start)}`;
          await conn.command(importCommand(statistic, batch));
          await repo.recordWritten(db, statistic.id, batch);
          hours += batch.length;
          this.analyze = true;
        }
      }
      health.success(clock.now());
      health.detail = `${await this.summary()} (Home Assistant ${conn.haVersion})`;
      return { hours, messages: conn.sent };
    } finally {
      signal.removeEventListener('abort', onAbort);
      conn.close();
    }
  }

  /** The hours due, after fetching the prices of metered days never fetched, as /api/costs would. */
  private async pending(signal: AbortSignal): Promise<repo.PendingHour[]> {
    const { db, pricing } = this.deps;
    if (this.analyze) await repo.analyzeStatistics(db);
    this.analyze = false;
    const written = await repo.writtenSummary(db);
    const lastOf = (id: string) => written.find((w) => w.statistic_id === id)?.last_start ?? new Date(0);
    const money = STATISTICS.filter((s) => s.unit === 'DKK').map((s) => lastOf(s.id).getTime());
    const unpriced = await repo.unpricedDays(db, pricing, new Date(Math.min(...money)));
    if (unpriced.length > 0) await this.deps.fillDays(unpriced, signal);
    signal.throwIfAborted();
    return repo.pendingHours(db, pricing);
  }

  /** The statistics written so far, for /health. */
  private async summary(): Promise<string> {
    const written = await repo.writtenSummary(this.deps.db);
    if (written.length === 0) return 'nothing written yet: no metered hours';
    return written.map((w) => `${w.statistic_id} through ${utcHour(w.last_start)}`).join('; ');
  }
}
