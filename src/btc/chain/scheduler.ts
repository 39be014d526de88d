import { Cron } from 'croner';
import type { Logger } from 'pino';
import type { FeedHealth } from '../../shared/health.js';
import { sleep } from '../../shared/sleep.js';
import type { Leadership } from '../leadership.js';
import type { ChainJob } from './jobs.js';

/** Runs a leader-only job on its schedule and once soon after leading begins; a round never overlaps itself. */
export class JobRunner {
  private cron: Cron | null = null;
  private running: Promise<void> | null = null;
  private first: Promise<void> | null = null;
  private unwatch: (() => void) | null = null;
  private readonly stopping = new AbortController();

  constructor(
    private readonly job: ChainJob,
    private readonly deps: { leadership: Leadership; log: Logger; health: FeedHealth; shutdown: AbortSignal },
  ) {}

  start(): void {
    const signal = AbortSignal.any([this.stopping.signal, this.deps.shutdown]);
    this.unwatch = this.deps.leadership.watch((leader) => {
      if (leader && !this.cron) {
        this.cron = new Cron(this.job.schedule, { timezone: 'Europe/Copenhagen', protect: true }, () =>
          this.runNow(),
        );
        if (this.deps.health.detail?.startsWith('standby')) this.deps.health.detail = null;
        this.first ??= sleep(this.job.firstRunDelayMs, signal).then(async () => {
          this.first = null;
          if (!signal.aborted && this.cron) await this.runNow();
        });
      } else if (!leader) {
        this.cron?.stop();
        this.cron = null;
        this.deps.health.detail = 'standby: another process holds the poller lock';
      }
    });
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    this.stopping.abort();
    this.cron?.stop();
    this.cron = null;
    await this.first;
    await this.running;
  }

  /** A round now, unless one is under way (then that one). */
  runNow(): Promise<void> {
    this.running ??= this.job
      .run()
      .catch((e: unknown) =>
        this.deps.log.warn({ err: e }, `${this.job.name} failed; the next round tries again`),
      )
      .finally(() => (this.running = null));
    return this.running;
  }
}
