import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.js';

/** A feed going down (its first failure since it last worked) or coming back (its first success since). */
export type FeedChange =
  { feed: string; down: true; error: string } | { feed: string; down: false; downMs: number };

/** What /health and /metrics report about each outbound feed. */
export class FeedHealth {
  connected: boolean | null = null;
  lastSuccessAt: Date | null = null;
  lastMessageAt: Date | null = null;
  lastErrorAt: Date | null = null;
  lastError: string | null = null;
  reconnects = 0;
  failures = 0;
  detail: string | null = null;
  /** Calls refused because the provider's call budget was spent (the client got 503 and Retry-After). */
  budgetRefusals = 0;
  /** Items of provider answers refused as implausible (out of bounds, outside the asked range), never stored. */
  rejected = 0;
  lastRejected: string | null = null;
  lastRejectedAt: Date | null = null;
  /** The latest answer had items refused; the next answer taken whole clears it. */
  rejecting = false;
  /** Since when the feed has failed without a success in between; null while it works. */
  downSince: Date | null = null;
  /** Its first round runs and what depends on it is not known yet: not ok, and no failure either. */
  starting = false;

  constructor(
    readonly name: string,
    public enabled: boolean,
    private readonly clock: Clock = systemClock,
    private readonly onChange: (change: FeedChange) => void = () => {},
  ) {}

  success(at = this.clock.now()) {
    this.lastSuccessAt = at;
    this.lastMessageAt = at;
    this.rejecting = false;
    if (this.downSince === null) return;
    const downMs = at.getTime() - this.downSince.getTime();
    this.downSince = null;
    this.onChange({ feed: this.name, down: false, downMs });
  }
  failure(error: unknown, at = this.clock.now()) {
    this.failures++;
    this.lastErrorAt = at;
    this.lastError = error instanceof Error ? error.message : String(error);
    if (this.downSince !== null) return;
    this.downSince = at;
    this.onChange({ feed: this.name, down: true, error: this.lastError });
  }
  /**
   * Counts `count` items of an answer refused as untrusted input; they are dropped, never stored.
   * The feed is not ok until an answer is taken whole: an adapter calls success() for an answer
   * that arrived, then reject() for what of it was refused.
   */
  reject(why: string, count = 1, at = this.clock.now()) {
    this.rejected += count;
    this.lastRejected = why;
    this.lastRejectedAt = at;
    this.rejecting = true;
  }
  /** Healthy when it has not failed since its last success and its latest answer was not refused. */
  get ok(): boolean {
    if (!this.enabled) return true;
    if (this.starting || this.rejecting) return false;
    if (this.lastErrorAt === null) return true;
    return this.lastSuccessAt !== null && this.lastSuccessAt >= this.lastErrorAt;
  }
  toJSON() {
    return {
      enabled: this.enabled,
      ok: this.ok,
      starting: this.starting,
      connected: this.connected,
      last_success_at: this.lastSuccessAt?.toISOString() ?? null,
      last_message_at: this.lastMessageAt?.toISOString() ?? null,
      last_error_at: this.lastErrorAt?.toISOString() ?? null,
      last_error: this.lastError,
      failures: this.failures,
      reconnects: this.reconnects,
      detail: this.detail,
      budget_refusals: this.budgetRefusals,
      rejected: this.rejected,
      last_rejected: this.lastRejected,
      last_rejected_at: this.lastRejectedAt?.toISOString() ?? null,
    };
  }
}

export class HealthRegistry {
  private readonly feeds = new Map<string, FeedHealth>();

  constructor(
    private readonly clock: Clock,
    /** Told when a feed goes down and comes back: one line each, not one per failed retry. */
    private readonly onChange: (change: FeedChange) => void = () => {},
  ) {}

  feed(name: string, enabled = true): FeedHealth {
    let f = this.feeds.get(name);
    if (!f) {
      f = new FeedHealth(name, enabled, this.clock, this.onChange);
      this.feeds.set(name, f);
    }
    return f;
  }
  all(): FeedHealth[] {
    return [...this.feeds.values()];
  }
}

/**
 * The log lines of a feed's outages: a warning when it goes down, with the error, and a line when
 * it is back, with how long it was down. Calls cut off by a stop (`quiet`) are not an outage.
 */
export function logFeedChanges(log: Logger, quiet: AbortSignal): (change: FeedChange) => void {
  return (change) => {
    if (quiet.aborted) return;
    if (change.down)
      log.warn({ feed: change.feed, err: change.error }, `${change.feed} feed down: ${change.error}`);
    else
      log.info(
        { feed: change.feed, downMs: change.downMs },
        `${change.feed} feed back after ${formatDuration(change.downMs)}`,
      );
  };
}

/** 850 ms, 42 s, 3 min 5 s, 2 h 10 min: how long a feed was down, for people. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
