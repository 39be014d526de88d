import type { Logger } from 'pino';
import type { FeedHealth } from '../../shared/health.js';
import type { Leadership } from '../leadership.js';
import type { CandleKind, CandleService } from './service.js';
import { sleep } from '../../shared/sleep.js';
import { logFailedRound } from '../../providers/errors.js';

export type Cadence = Record<CandleKind, number>;

/** 1-minute candles every 15 s (seed); hourly every 5 minutes; daily hourly. */
export const DEFAULT_CADENCE: Cadence = { minute: 15_000, hour: 5 * 60_000, day: 60 * 60_000 };
/** Consecutive failures stretch a poller's wait, doubling, up to this. */
const MAX_BACKOFF_MS = 5 * 60_000;

/** One polling loop per interval, running only while this process leads. */
export class CandlePollers {
  private running: { controller: AbortController; loops: Promise<void>[] } | null = null;
  private unwatch: (() => void) | null = null;

  constructor(
    private readonly candles: CandleService,
    private readonly deps: {
      cadence: Cadence;
      leadership: Leadership;
      health: FeedHealth;
      log: Logger;
      shutdown: AbortSignal;
    },
  ) {}

  start(): void {
    this.unwatch = this.deps.leadership.watch((leader) => {
      this.deps.health.detail = leader ? null : 'another process polls';
      if (leader) this.resume();
      else void this.halt();
    });
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    await this.halt();
  }

  private resume(): void {
    if (this.running || this.deps.shutdown.aborted) return;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, this.deps.shutdown]);
    const kinds = Object.keys(this.deps.cadence) as CandleKind[];
    this.running = { controller, loops: kinds.map((k) => this.loop(k, signal)) };
  }

  private async halt(): Promise<void> {
    const running = this.running;
    this.running = null;
    if (!running) return;
    running.controller.abort();
    await Promise.all(running.loops);
  }

  private async loop(kind: CandleKind, signal: AbortSignal): Promise<void> {
    const every = this.deps.cadence[kind];
    let failures = 0;
    while (!signal.aborted) {
      try {
        const written = await this.candles.pollAll(kind, signal);
        failures = 0;
        this.deps.log.debug({ kind, written }, 'candles polled');
      } catch (e) {
        failures++;
        if (!signal.aborted) logFailedRound(this.deps.log, e, 'candle poll failed', { kind, failures });
      }
      const wait = failures === 0 ? every : Math.min(every * 2 ** failures, Math.max(every, MAX_BACKOFF_MS));
      await sleep(wait, signal);
    }
  }
}
