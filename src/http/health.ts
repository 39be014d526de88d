import { systemClock, type Clock } from '../shared/clock.js';

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

  constructor(
    readonly name: string,
    public enabled: boolean,
    private readonly clock: Clock = systemClock,
  ) {}

  success(at = this.clock.now()) {
    this.lastSuccessAt = at;
    this.lastMessageAt = at;
    this.rejecting = false;
  }
  failure(error: unknown, at = this.clock.now()) {
    this.failures++;
    this.lastErrorAt = at;
    this.lastError = error instanceof Error ? error.message : String(error);
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
    if (this.rejecting) return false;
    if (this.lastErrorAt === null) return true;
    return this.lastSuccessAt !== null && this.lastSuccessAt >= this.lastErrorAt;
  }
  toJSON() {
    return {
      enabled: this.enabled,
      ok: this.ok,
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

  constructor(private readonly clock: Clock) {}

  feed(name: string, enabled = true): FeedHealth {
    let f = this.feeds.get(name);
    if (!f) {
      f = new FeedHealth(name, enabled, this.clock);
      this.feeds.set(name, f);
    }
    return f;
  }
  all(): FeedHealth[] {
    return [...this.feeds.values()];
  }
}
