import { Cron } from 'croner';
import type { Logger } from 'pino';
import { sleep } from '../../shared/sleep.js';
import type { Leadership } from '../leadership.js';
import type { RetentionService } from './service.js';

/** Once a day at 03:17 Danish time, and once a minute after this process becomes the leader. */
export const DEFAULT_RETENTION_PATTERN = '17 3 * * *';

/** Runs retention on the leader only; a run in progress is never started twice. */
export class RetentionScheduler {
  private job: Cron | null = null;
  private running: Promise<void> | null = null;
  private unwatch: (() => void) | null = null;
  private readonly stopping = new AbortController();
  private first: Promise<void> | null = null;

  constructor(
    private readonly retention: RetentionService,
    private readonly deps: {
      leadership: Leadership;
      log: Logger;
      pattern: string;
      /** The first run waits this long after start, out of the way of a starting process. */
      firstRunDelayMs: number;
      shutdown: AbortSignal;
    },
  ) {}

  start(): void {
    this.unwatch = this.deps.leadership.watch((leader) => {
      if (leader && !this.job) {
        this.job = new Cron(this.deps.pattern, { timezone: 'Europe/Copenhagen', protect: true }, () =>
          this.runNow(),
        );
        const signal = AbortSignal.any([this.stopping.signal, this.deps.shutdown]);
        this.first ??= sleep(this.deps.firstRunDelayMs, signal).then(async () => {
          this.first = null;
          if (!signal.aborted && this.job) await this.runNow();
        });
      } else if (!leader) {
        this.job?.stop();
        this.job = null;
      }
    });
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    this.stopping.abort();
    this.job?.stop();
    this.job = null;
    await this.first;
    await this.running;
  }

  /** One run now unless one is under way; never throws (the next day tries again). */
  runNow(): Promise<void> {
    this.running ??= (async () => {
      const started = performance.now();
      try {
        const r = await this.retention.run(AbortSignal.any([this.stopping.signal, this.deps.shutdown]));
        this.deps.log.info({ ...r, ms: Math.round(performance.now() - started) }, 'retention: done');
      } catch (e) {
        this.deps.log.warn({ err: e }, 'retention failed; trying again tomorrow');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }
}
