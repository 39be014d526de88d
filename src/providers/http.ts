import { ExponentialBackoff, type IBackoffFactory } from 'cockatiel';
import type { FeedHealth } from '../shared/health.js';
import type { Clock } from '../shared/clock.js';
import { sleep } from '../shared/sleep.js';
import { decodeUtf8, utf8Fault } from '../shared/utf8.js';
import { BudgetExhausted, type CallBudget, type OnBusy } from './budget.js';
import { ProviderError } from './errors.js';

export { ProviderError };

/** What every provider adapter is given by the feature that builds it (see `providerDeps`). */
export interface ProviderDeps {
  /** The wall clock (Retry-After dates, health) and the monotonic scale of the budget. */
  clock: Clock;
  /** The provider's call budget, one per process; every attempt takes a slot first. */
  budget: CallBudget;
  /** A larger answer body aborts the call as a provider failure (PROVIDER_MAX_BYTES). */
  maxBytes: number;
}

export interface HttpProviderOptions extends ProviderDeps {
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
  /** How long a 429 without Retry-After keeps everyone away (the provider's documented block), if known. */
  rateLimitPauseMs?: number;
  health?: FeedHealth;
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  /** False: a redirect fails the call instead of being followed to whatever server it names. */
  followRedirects?: boolean;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the provider's default for this call. */
  retries?: number;
  /** When the budget is spent: wait for a slot (background work, the default; the household's own request, ahead of it) or refuse at once (an anonymous read). */
  onBusy?: OnBusy;
}

export interface HttpResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/**
 * JSON over HTTP with a timeout on every attempt, exponential backoff with jitter
 * (cockatiel's decorrelated jitter; a longer Retry-After wins) on network errors, timeouts, 5xx
 * and 429, waited in the abortable sleep. Each attempt first takes a slot of the provider's budget.
 */
export class HttpProvider {
  constructor(readonly opts: HttpProviderOptions) {}

  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<HttpResponse<T>> {
    const signal = o.signal ?? NEVER;
    const maxRetries = o.retries ?? this.opts.retries ?? 3;
    let backoff: IBackoffFactory<undefined> = new ExponentialBackoff({
      initialDelay: this.opts.initialDelayMs ?? 500,
      maxDelay: this.opts.maxDelayMs ?? 30_000,
    });
    for (let attempt = 0; ; attempt++) {
      try {
        // Only a first attempt may be refused: a retry has already waited out the provider's
        // Retry-After (which paused this budget), and a timer can end a hair before the pause does
        // (an owner's request waits that hair out, and keeps going ahead of background work).
        await this.opts.budget.take(
          attempt === 0 || o.onBusy === 'owner' ? (o.onBusy ?? 'wait') : 'wait',
          signal,
        );
        const res = await this.once<T>(method, path, o, signal);
        this.opts.health?.success();
        return res;
      } catch (e) {
        const retry = e instanceof ProviderError && e.transient && attempt < maxRetries && !signal.aborted;
        if (!retry) {
          // A refused budget sent nothing: the provider did not fail.
          if (!(e instanceof BudgetExhausted)) this.opts.health?.failure(e);
          throw e;
        }
        const step = backoff.next(undefined);
        backoff = step;
        await sleep(Math.max(step.duration, e.opts.retryAfterMs ?? 0), signal);
        if (signal.aborted) {
          this.opts.health?.failure(e);
          throw new ProviderError(this.opts.name, 'call cancelled', { transient: false, cause: e });
        }
      }
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
    let bytes: Buffer;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal,
        redirect: this.opts.followRedirects === false ? 'manual' : 'follow',
      });
      bytes = await readCapped(res, this.opts.maxBytes);
    } catch (e) {
      if (e instanceof TooLarge)
        throw fail(`answer of ${method} ${url.pathname} is larger than ${this.opts.maxBytes} bytes`, {
          badAnswer: true,
          transient: false,
          cause: e,
        });
      if (outer.aborted) throw fail('call cancelled', { transient: false, cause: e });
      const timedOut = (e as Error).name === 'TimeoutError';
      throw fail(
        timedOut ? `no answer within ${this.opts.timeoutMs} ms` : `connection failed (${causeOf(e)})`,
        {
          cause: e,
        },
      );
    }
    if (this.opts.followRedirects === false && res.status >= 300 && res.status < 400)
      throw fail(`HTTP ${res.status} from ${method} ${url.pathname} (a redirect, not followed)`, {
        status: res.status,
        transient: false,
      });
    if (!res.ok) {
      const text = bytes.toString('utf8');
      const retryAfterMs =
        parseRetryAfter(res.headers.get('retry-after'), this.opts.clock.now().getTime()) ??
        (res.status === 429 ? this.opts.rateLimitPauseMs : undefined);
      // The provider blocks us for a while: nobody calls it before then, whoever asks.
      if (retryAfterMs !== undefined && (res.status === 429 || res.status === 503))
        this.opts.budget.pause(retryAfterMs);
      const tooLong = retryAfterMs !== undefined && retryAfterMs > (this.opts.maxRetryAfterMs ?? 60_000);
      throw fail(`HTTP ${res.status} from ${method} ${url.pathname}: ${text.slice(0, 200)}`, {
        status: res.status,
        retryAfterMs,
        transient: (res.status >= 500 || res.status === 429 || res.status === 408) && !tooLong,
      });
    }
    // an answer's text is stored (names of charges, owners): bytes that are not UTF-8 are refused, not replaced
    const notUtf8 = utf8Fault(bytes);
    if (notUtf8) throw fail(`answer of ${method} ${url.pathname} ${notUtf8}`, { status: res.status });
    const text = decodeUtf8(bytes);
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

const NEVER = new AbortController().signal;

class TooLarge extends Error {}

/** The body's bytes, or TooLarge as soon as it (or its announced length) passes `max` bytes; the rest is not read. */
async function readCapped(res: Response, max: number): Promise<Buffer> {
  const announced = Number(res.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > max) {
    await res.body?.cancel();
    throw new TooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new TooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Seconds or an HTTP date, as RFC 9110 allows; `nowMs` is the clock's wall time. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
