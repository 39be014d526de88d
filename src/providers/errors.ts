import { Refusal } from '../shared/refusal.js';

/**
 * A provider call that failed; `transient` ones are retried. `status` is the provider's own HTTP
 * status when it answered (200 for an answer that was malformed or implausible); `badAnswer` marks
 * an answer that could not be read at all (too large).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly opts: {
      status?: number;
      transient: boolean;
      retryAfterMs?: number;
      badAnswer?: boolean;
      cause?: unknown;
    },
  ) {
    super(`${provider}: ${message}`, { cause: opts.cause });
  }
  get transient() {
    return this.opts.transient;
  }
  get status() {
    return this.opts.status;
  }
  /** No answer, or one that says to come back later (429, 503); the budget's own refusal is a 429. */
  get unavailable(): boolean {
    const status = this.opts.status;
    return (status === undefined && !this.opts.badAnswer) || status === 429 || status === 503;
  }
  /** The refusal of an answer that needed this provider and has nothing stored. */
  refusal(): Refusal {
    const detail = `the ${this.provider} provider is unavailable (${this.message.slice(this.provider.length + 2)})`;
    if (!this.unavailable) return new Refusal('provider-failed', detail);
    const after = this.opts.retryAfterMs;
    return new Refusal(
      'provider-unavailable',
      detail,
      after === undefined ? undefined : Math.max(1, Math.ceil(after / 1000)),
    );
  }
}

/**
 * How a feed logs a failed round: a provider's failure only at debug level, since the feed's
 * health logs the outage once when it begins and once when it ends (logFeedChanges); anything
 * else (a database error, a bug) as a warning with its stack.
 */
export function logFailedRound(
  log: { debug(o: object, msg: string): void; warn(o: object, msg: string): void },
  e: unknown,
  msg: string,
  fields: object = {},
): void {
  if (e instanceof ProviderError) log.debug({ ...fields, err: e.message }, msg);
  else log.warn({ ...fields, err: e }, msg);
}
