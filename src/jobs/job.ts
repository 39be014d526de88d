import { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { FeedHealth } from '../shared/health.js';
import { sleep } from '../shared/sleep.js';
import { ALWAYS_LEADER, type Leadership, type Leaderships, type LockName } from './leadership.js';
import type { Wake } from './wake.js';

/** When a job's rounds come. */
export type Schedule =
  /**
   * At the times of a cron pattern in Danish time, read off the injected clock; the clock is read
   * again at least every `recheckMs` (it may be set, or jump), 60 s unless told.
   */
  | { cron: string; recheckMs?: number }
  /**
   * `everyMs` after the end of each round; after a round that failed, `afterFailure(failures)`
   * (consecutive failures) instead. With `wake`, a poke ends the wait after a round that did not
   * fail, and the round comes `settleMs` after the poke.
   */
  | { everyMs: number; afterFailure?: (failures: number) => number; wake?: Wake; settleMs?: number }
  /** One round, which lasts as long as its signal lets it (a connection kept open while leading). */
  | { once: true };

/** When the first round comes, after the start or after gaining the lead. */
export type FirstRound =
  | 'at-once'
  | 'on-schedule'
  /** After `afterMs`, out of the way of a starting process; with `when`, only if it answers true. */
  | { afterMs: number; when?: () => Promise<boolean> };

/**
 * Background work as the runtime runs it: a name, a schedule, who runs it (the holder of `lock`,
 * or every process), its feed, and one round that hears `signal` (the stop, or the lead lost).
 */
export interface Job {
  name: string;
  schedule: Schedule;
  /** Only the process holding this lock runs the job; without one, every process does. */
  lock?: LockName;
  /** The job's feed in /health: it says `standby` while another process leads. */
  health?: FeedHealth;
  standby?: string;
  /** Said in the feed on gaining the lead (else a standby detail is cleared). */
  leading?: string;
  /** At once unless told. */
  first?: FirstRound;
  /** 'done' ends the job for the life of the process. A round that throws counts as failed. */
  round(signal: AbortSignal): Promise<void | 'done'>;
  /** How a failed round is told (a warning in the log unless given); `retryInMs` for an interval. */
  failed?(e: unknown, next: { failures: number; retryInMs: number | null }): void;
}

export interface JobDeps {
  clock: Clock;
  log: Logger;
  shutdown: AbortSignal;
  leadership: Pick<Leaderships, 'of'>;
}

/** Settles once `signal` aborts: the round of a `once` job that holds a connection while it may. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const DANISH = 'Europe/Copenhagen';
const RECHECK_MS = 60_000;

/**
 * Runs one job: its rounds never overlap (a round asked for while one runs is that one), a
 * leader-only job runs while this process holds its lock and stops its rounds when it loses it,
 * and `stop` ends every wait at once and returns when the round under way has heard it.
 */
export class JobRunner {
  private readonly stopping = new AbortController();
  private readonly lifetime: AbortSignal;
  private readonly leadership: Leadership;
  private readonly cron: Cron | null;
  private running: Promise<'ok' | 'failed' | 'done'> | null = null;
  private session: AbortController | null = null;
  private readonly sessions = new Set<Promise<void>>();
  private unwatch: (() => void) | null = null;
  private finished = false;
  private failures = 0;
  private pause = 0;
  /** When the latest round began: the next time of a pattern is the first after it. */
  private began: Date | null = null;
  private firstDone!: () => void;
  private readonly first = new Promise<void>((resolve) => (this.firstDone = resolve));

  constructor(
    readonly job: Job,
    private readonly deps: JobDeps,
  ) {
    this.lifetime = AbortSignal.any([this.stopping.signal, deps.shutdown]);
    this.leadership = job.lock ? deps.leadership.of(job.lock) : ALWAYS_LEADER;
    this.cron =
      'cron' in job.schedule ? new Cron(job.schedule.cron, { timezone: DANISH, paused: true }) : null;
    this.pause = 'everyMs' in job.schedule ? job.schedule.everyMs : 0;
  }

  start(): void {
    if (this.unwatch || this.lifetime.aborted) return;
    this.unwatch = this.leadership.watch((leader) => (leader ? this.lead() : this.follow()));
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    this.stopping.abort();
    this.session?.abort();
    this.session = null;
    this.firstDone();
    await Promise.all([...this.sessions]);
    await this.running;
  }

  /** Settles once the first round after the start has run, or was found not due. */
  firstRound(): Promise<void> {
    return this.first;
  }

  /**
   * A round now, unless one is under way (then that one); never throws. A leader-only job runs
   * none while another process leads.
   */
  async runNow(signal: AbortSignal = this.lifetime): Promise<void> {
    await this.attempt(signal);
  }

  private attempt(signal: AbortSignal): Promise<'ok' | 'failed' | 'done' | 'standby'> {
    if (this.finished) return Promise.resolve('done');
    if (!this.leadership.isLeader()) {
      this.sayStandby();
      return Promise.resolve('standby');
    }
    this.running ??= this.round(signal).finally(() => (this.running = null));
    return this.running;
  }

  private async round(signal: AbortSignal): Promise<'ok' | 'failed' | 'done'> {
    const { schedule } = this.job;
    const every = 'everyMs' in schedule ? schedule : null;
    this.began = this.deps.clock.now();
    try {
      const end = await this.job.round(signal);
      this.failures = 0;
      this.pause = every?.everyMs ?? 0;
      if (end !== 'done') return 'ok';
      this.finished = true;
      return 'done';
    } catch (e) {
      this.failures++;
      this.pause = every ? (every.afterFailure?.(this.failures) ?? every.everyMs) : 0;
      if (signal.aborted) return 'failed';
      const next = { failures: this.failures, retryInMs: every ? this.pause : null };
      try {
        if (this.job.failed) this.job.failed(e, next);
        else this.deps.log.warn({ err: e, job: this.job.name, ...next }, `${this.job.name}: a round failed`);
      } catch {
        // telling it must not end the job
      }
      return 'failed';
    }
  }

  private lead(): void {
    if (this.session || this.finished || this.lifetime.aborted) return;
    const { health, standby, leading } = this.job;
    if (health && leading !== undefined) health.detail = leading;
    else if (health && standby !== undefined && health.detail === standby) health.detail = null;
    const session = new AbortController();
    this.session = session;
    const done: Promise<void> = this.rounds(AbortSignal.any([session.signal, this.lifetime])).finally(() =>
      this.sessions.delete(done),
    );
    this.sessions.add(done);
  }

  private follow(): void {
    this.session?.abort();
    this.session = null;
    if (!this.lifetime.aborted) this.sayStandby();
  }

  private sayStandby(): void {
    const { health, standby } = this.job;
    if (health && standby !== undefined && !this.finished) health.detail = standby;
  }

  /** The rounds of one start, or of one lead: the first as told, then by the schedule. */
  private async rounds(signal: AbortSignal): Promise<void> {
    const first = this.job.first ?? 'at-once';
    // a round of the lead just lost may still be ending: this lead's first round is a new one
    await this.running;
    const due = async (when: () => Promise<boolean>) => when().catch(() => true);
    try {
      if (first === 'at-once') {
        if ((await this.attempt(signal)) === 'done') return;
      } else if (first !== 'on-schedule' && (!first.when || (await due(first.when)))) {
        await sleep(first.afterMs, signal);
        if (signal.aborted || (await this.attempt(signal)) === 'done') return;
      }
    } finally {
      this.firstDone();
    }
    if ('once' in this.job.schedule) return;
    while (!signal.aborted) {
      await this.wait(signal);
      if (signal.aborted || (await this.attempt(signal)) === 'done') return;
    }
  }

  private async wait(signal: AbortSignal): Promise<void> {
    const { schedule } = this.job;
    if ('everyMs' in schedule) {
      if (!schedule.wake || this.failures > 0) return sleep(this.pause, signal);
      if (await schedule.wake.wait(this.pause, signal)) await sleep(schedule.settleMs ?? 0, signal);
      return;
    }
    if (!this.cron || !('cron' in schedule)) return;
    const at = this.cron.nextRun(this.began ?? this.deps.clock.now())?.getTime();
    if (at === undefined) return sleep(schedule.recheckMs ?? RECHECK_MS, signal);
    for (;;) {
      const left = at - this.deps.clock.now().getTime();
      if (left <= 0 || signal.aborted) return;
      await sleep(Math.min(left, schedule.recheckMs ?? RECHECK_MS), signal);
    }
  }
}
