import { readFile } from 'node:fs/promises';
import type { FeedHealth } from '../shared/health.js';
import { addDays, danishDayBounds } from '../shared/danish-time.js';
import { sleep } from '../shared/sleep.js';
import { BudgetExhausted, type CallBudget, type OnBusy } from './budget.js';
import { Type } from 'typebox';
import { answer, refused } from './answer.js';
import { HttpProvider, ProviderError, type ProviderDeps } from './http.js';
import {
  chargesRefusal,
  parseCharges,
  parseMeteringPoints,
  RefusedCharges,
  parseTimeSeries,
  type MeteringPoint,
  type MeteringPointCharges,
  type TimeSeries,
} from './eloverblik-parse.js';

export { EloverblikItemError, RefusedCharges } from './eloverblik-parse.js';
export type {
  Charge,
  ChildMeteringPoint,
  MeteringPoint,
  MeteringPointCharges,
  SeriesPeriod,
  SeriesPoint,
  TimeSeries,
} from './eloverblik-parse.js';

export const ELOVERBLIK = 'eloverblik';
/** `GET /token`: `{result: "<data access token>"}`, a JWT whose `exp` says when it expires. */
const TokenAnswer = answer(ELOVERBLIK, Type.Object({ result: Type.String({ minLength: 1 }) }));
const API = '/customerapi/api';
/** The provider asks for at most 10 metering points per call. */
const BATCH = 10;

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export type Aggregation = 'Actual' | 'Quarter' | 'Hour' | 'Day' | 'Month' | 'Year';

export interface EloverblikOptions extends ProviderDeps {
  /** The token endpoint's own budget (2 calls a minute); `budget` is the data endpoints'. */
  tokenBudget: CallBudget;
  baseUrl: string;
  timeoutMs: number;
  /** Where the refresh token comes from; read only when a data access token is needed. */
  refreshToken: () => Promise<string>;
  health?: FeedHealth;
  /** Injected so tests need not wait the minute the provider asks for. */
  sleep?: Sleep;
  /** Wait after a 429 or 503 without Retry-After (the provider's guidance: one minute). */
  busyWaitMs?: number;
  /** A Retry-After longer than this is not waited for. */
  maxWaitMs?: number;
  /** Retries after the first attempt for 429, 503, other 5xx and network failures. */
  retries?: number;
}

/**
 * The Eloverblik customer API. A data access token is obtained with the refresh token, kept
 * until shortly before it expires (the token endpoint allows 2 calls a minute) and renewed once
 * when a data call answers 401.
 */
export class EloverblikClient {
  private readonly http: HttpProvider;
  private readonly tokenHttp: HttpProvider;
  private cached: { value: string; renewAt: number } | null = null;
  private pending: Promise<string> | null = null;
  private readonly sleep: Sleep;
  private readonly now: () => number;

  constructor(private readonly opts: EloverblikOptions) {
    const http = {
      name: ELOVERBLIK,
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs,
      retries: 0,
      clock: opts.clock,
      maxBytes: opts.maxBytes,
    };
    this.http = new HttpProvider({ ...http, budget: opts.budget });
    this.tokenHttp = new HttpProvider({ ...http, budget: opts.tokenBudget });
    this.sleep = opts.sleep ?? ((ms, signal) => sleep(ms, signal ?? NEVER));
    this.now = () => opts.clock.now().getTime();
  }

  /** `onBusy`: a client's request is refused when the budget is spent ('refuse'); background work waits. */
  async meteringPoints(signal?: AbortSignal, onBusy: OnBusy = 'wait'): Promise<MeteringPoint[]> {
    const path = `${API}/meteringpoints/meteringpoints?includeAll=false`;
    return this.observed(async () =>
      parseMeteringPoints(await this.call('GET', path, undefined, signal, onBusy)),
    );
  }

  /** Series of [from, to): `to` is exclusive and must be after `from` (dates YYYY-MM-DD). */
  async timeSeries(
    ids: string[],
    from: string,
    to: string,
    aggregation: Aggregation = 'Hour',
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<TimeSeries[]> {
    if (!(from < to)) throw new Error(`time series end ${to} must be after its start ${from}`);
    return this.observed(async () => {
      const out: TimeSeries[] = [];
      for (const batch of batches(ids)) {
        const path = `${API}/meterdata/gettimeseries/${from}/${to}/${aggregation}`;
        out.push(...parseTimeSeries(await this.call('POST', path, body(batch), signal, onBusy)));
      }
      return this.inRange(out, from, to);
    });
  }

  /** Drops, and counts in /health, the points that start outside the Danish days [from, to) asked for. */
  private inRange(series: TimeSeries[], from: string, to: string): TimeSeries[] {
    const start = danishDayBounds(from).start;
    const end = danishDayBounds(addDays(to, -1)).end;
    let dropped = 0;
    const kept = series.map((s) => ({
      ...s,
      periods: s.periods.map((p) => {
        const points = p.points.filter((pt) => pt.start >= start && pt.start < end);
        dropped += p.points.length - points.length;
        return { ...p, points };
      }),
    }));
    if (dropped > 0)
      this.opts.health?.reject(`${dropped} metering points outside ${from}..${addDays(to, -1)}`, dropped);
    return kept;
  }

  /**
   * The charges of the points; an answer with an implausible charge (plausible.ts) is refused
   * whole, counted in /health, and thrown as RefusedCharges: nothing of it may be stored.
   */
  async charges(
    ids: string[],
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<MeteringPointCharges[]> {
    const out = await this.observed(async () => {
      const all: MeteringPointCharges[] = [];
      for (const batch of batches(ids)) {
        const path = `${API}/meteringpoints/meteringpoint/getcharges`;
        all.push(...parseCharges(await this.call('POST', path, body(batch), signal, onBusy)));
      }
      return all;
    });
    const refused = chargesRefusal(out);
    if (refused === null) return out;
    this.opts.health?.reject(refused.why, refused.count);
    throw new RefusedCharges(refused.why);
  }

  private async observed<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const result = await fn();
      this.opts.health?.success(new Date(this.now()));
      return result;
    } catch (e) {
      this.opts.health?.failure(e, new Date(this.now()));
      throw e;
    }
  }

  private async call(
    method: string,
    path: string,
    payload: unknown,
    signal: AbortSignal | undefined,
    onBusy: OnBusy,
  ): Promise<unknown> {
    let token = await this.accessToken(signal);
    const attempt = () =>
      this.patiently(
        () =>
          this.http.request<unknown>(method, path, { body: payload, headers: bearer(token), signal, onBusy }),
        signal,
      );
    try {
      return (await attempt()).data;
    } catch (e) {
      if (!(e instanceof ProviderError) || e.status !== 401) throw e;
      this.forget(token);
      token = await this.accessToken(signal);
      return (await attempt()).data;
    }
  }

  private accessToken(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return Promise.resolve(this.cached.value);
    this.pending ??= this.fetchAccessToken(signal).finally(() => (this.pending = null));
    return this.pending;
  }

  private forget(token: string) {
    if (this.cached?.value === token) this.cached = null;
  }

  private async fetchAccessToken(signal?: AbortSignal): Promise<string> {
    const refresh = await this.opts.refreshToken();
    let data: unknown;
    try {
      data = (
        await this.patiently(
          () => this.tokenHttp.request<unknown>('GET', `${API}/token`, { headers: bearer(refresh), signal }),
          signal,
        )
      ).data;
    } catch (e) {
      if (e instanceof ProviderError && e.status === 401)
        throw new ProviderError(ELOVERBLIK, 'the refresh token was refused (HTTP 401)', {
          status: 401,
          transient: false,
        });
      // A body that is no JSON could be the token itself; never let it into a message.
      if (e instanceof ProviderError && e.status === 200)
        throw new ProviderError(ELOVERBLIK, 'the token endpoint answered malformed JSON', {
          status: 200,
          transient: false,
        });
      throw e;
    }
    // what is wrong with the answer is not said: its text could be the token
    if (!TokenAnswer.is(data)) throw refused(ELOVERBLIK, 'the token endpoint answered without a token');
    const value = data.result;
    const now = this.now();
    const expiresAt = jwtExpiry(value) ?? now + 24 * 3600_000;
    // Renew five minutes early (or at half the lifetime of a short-lived token).
    this.cached = { value, renewAt: expiresAt - Math.min(5 * 60_000, (expiresAt - now) / 2) };
    return value;
  }

  /** Retries what the provider says is temporary: 429 and 503 after the wait it asks for. */
  private async patiently<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const retries = this.opts.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (!(e instanceof ProviderError) || e instanceof BudgetExhausted) throw e;
        if (attempt >= retries || signal?.aborted) throw e;
        const wait = this.waitBefore(e, attempt);
        if (wait === null) throw e;
        await this.sleep(wait, signal);
      }
    }
  }

  private waitBefore(e: ProviderError, attempt: number): number | null {
    if (e.status === 429 || e.status === 503) {
      const asked = e.opts.retryAfterMs ?? this.opts.busyWaitMs ?? 60_000;
      // Nobody calls the provider before then, whoever asks.
      this.opts.budget.pause(asked);
      return asked > (this.opts.maxWaitMs ?? 5 * 60_000) ? null : asked;
    }
    if (e.transient && (e.status === undefined || e.status >= 500)) return 1000 * 2 ** attempt;
    return null;
  }
}

/** The refresh token from METERING_TOKEN, else from the `.token` file; never logged. */
export function refreshTokenSource(config: {
  meteringToken: string | null;
  meteringTokenFile: string;
}): () => Promise<string> {
  return async () => {
    if (config.meteringToken !== null) return config.meteringToken;
    const missing = () =>
      new ProviderError(
        ELOVERBLIK,
        `no refresh token: set METERING_TOKEN or write the token to ${config.meteringTokenFile}`,
        { transient: false },
      );
    let text: string;
    try {
      text = await readFile(config.meteringTokenFile, 'utf8');
    } catch {
      throw missing();
    }
    const token = text.trim();
    if (token === '') throw missing();
    return token;
  };
}

const NEVER = new AbortController().signal;

function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

function body(ids: string[]) {
  return { meteringPoints: { meteringPoint: ids } };
}

function batches(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(ids.slice(i, i + BATCH));
  return out;
}

/** The claims of the token's payload that are read. */
const Claims = answer(ELOVERBLIK, Type.Object({ exp: Type.Number() }));

/** The `exp` claim of a JWT in ms, or null when the token is not a readable JWT. */
export function jwtExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Claims.is(claims) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}
