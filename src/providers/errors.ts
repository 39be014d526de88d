/** A provider call that failed; `transient` ones are retried, and 502/503 is what a caller answers. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly opts: { status?: number; transient: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super(`${provider}: ${message}`, { cause: opts.cause });
  }
  get transient() {
    return this.opts.transient;
  }
  get status() {
    return this.opts.status;
  }
  /** How the API answers when it needed this provider and has nothing stored. */
  problem(): { status: number; detail: string; headers?: Record<string, string> } {
    const unavailable =
      this.opts.status === 429 || this.opts.status === 503 || this.opts.status === undefined;
    const after = this.opts.retryAfterMs;
    return {
      status: unavailable ? 503 : 502,
      detail: `the ${this.provider} provider is unavailable (${this.message.slice(this.provider.length + 2)})`,
      ...(unavailable && after !== undefined
        ? { headers: { 'retry-after': String(Math.max(1, Math.ceil(after / 1000))) } }
        : {}),
    };
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
