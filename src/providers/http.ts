import {
  ExponentialBackoff,
  handleWhen,
  retry,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
} from 'cockatiel';
import type { FeedHealth } from '../http/health.js';

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
  problem() {
    const unavailable =
      this.opts.status === 429 || this.opts.status === 503 || this.opts.status === undefined;
    return {
      status: unavailable ? 503 : 502,
      detail: `the ${this.provider} provider is unavailable (${this.message.slice(this.provider.length + 2)})`,
    };
  }
}

export interface HttpProviderOptions {
  /** Name used in errors, logs and /health. */
  name: string;
  baseUrl: string;
  timeoutMs: number;
  /** Retries after the first attempt, for transient failures. */
  retries?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for; the call fails instead. */
  maxRetryAfterMs?: number;
  health?: FeedHealth;
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the provider's default for this call. */
  retries?: number;
}

export interface HttpResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/** Waits what the provider asked for (Retry-After) when that is longer than the exponential step. */
class RetryAfterBackoff implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  constructor(private readonly inner: IBackoffFactory<unknown>) {}
  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const step = this.inner.next(context);
    const err = 'error' in context.result ? context.result.error : undefined;
    const asked = err instanceof ProviderError ? (err.opts.retryAfterMs ?? 0) : 0;
    return { duration: Math.max(step.duration, asked), next: (c) => new RetryAfterBackoff(step).next(c) };
  }
}

/**
 * JSON over HTTP with a timeout on every attempt, exponential backoff with jitter
 * (cockatiel's decorrelated jitter) on network errors, timeouts, 5xx and 429.
 */
export class HttpProvider {
  constructor(readonly opts: HttpProviderOptions) {}

  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<HttpResponse<T>> {
    const policy = retry(
      handleWhen((e) => e instanceof ProviderError && e.transient),
      {
        maxAttempts: o.retries ?? this.opts.retries ?? 3,
        backoff: new RetryAfterBackoff(
          new ExponentialBackoff({
            initialDelay: this.opts.initialDelayMs ?? 500,
            maxDelay: this.opts.maxDelayMs ?? 30_000,
          }),
        ),
      },
    );
    try {
      const res = await policy.execute(({ signal }) => this.once<T>(method, path, o, signal), o.signal);
      this.opts.health?.success();
      return res;
    } catch (e) {
      this.opts.health?.failure(e);
      throw e;
    }
  }

  get<T>(path: string, o: RequestOptions = {}) {
    return this.request<T>('GET', path, o).then((r) => r.data);
  }
  post<T>(path: string, body: unknown, o: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...o, body }).then((r) => r.data);
  }

  private async once<T>(
    method: string,
    path: string,
    o: RequestOptions,
    outer: AbortSignal,
  ): Promise<HttpResponse<T>> {
    const url = new URL(this.opts.baseUrl + path);
    for (const [k, v] of Object.entries(o.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const signal = AbortSignal.any([outer, AbortSignal.timeout(this.opts.timeoutMs)]);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(await this.opts.headers?.()),
      ...o.headers,
    };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const fail = (
      message: string,
      extra: Omit<ProviderError['opts'], 'transient'> & { transient?: boolean },
    ) => new ProviderError(this.opts.name, message, { transient: true, ...extra });

    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal,
      });
      text = await res.text();
    } catch (e) {
      if (outer.aborted) throw fail('call cancelled', { transient: false, cause: e });
      const timedOut = (e as Error).name === 'TimeoutError';
      throw fail(
        timedOut ? `no answer within ${this.opts.timeoutMs} ms` : `connection failed (${causeOf(e)})`,
        {
          cause: e,
        },
      );
    }
    if (!res.ok) {
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      const tooLong = retryAfterMs !== undefined && retryAfterMs > (this.opts.maxRetryAfterMs ?? 60_000);
      throw fail(`HTTP ${res.status} from ${method} ${url.pathname}: ${text.slice(0, 200)}`, {
        status: res.status,
        retryAfterMs,
        transient: (res.status >= 500 || res.status === 429 || res.status === 408) && !tooLong,
      });
    }
    try {
      return { status: res.status, data: (text === '' ? null : JSON.parse(text)) as T, headers: res.headers };
    } catch (e) {
      throw fail(`malformed JSON from ${method} ${url.pathname}: ${text.slice(0, 80)}`, {
        status: res.status,
        cause: e,
      });
    }
  }
}

function causeOf(e: unknown): string {
  const c = (e as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (e as Error).message;
}

/** Seconds or an HTTP date, as RFC 9110 allows. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
