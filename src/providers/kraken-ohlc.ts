import type { FeedHealth } from '../shared/health.js';
import { HttpProvider, ProviderError, type ProviderDeps } from './http.js';
import { BTC_FIAT, CANDLE_VOLUME, JumpGuard, futureRefusal, inRange } from './plausible.js';

export const KRAKEN = 'kraken';

/** Candle intervals in minutes, as Kraken's `interval` parameter takes them. */
export const OHLC_INTERVALS = [1, 5, 15, 30, 60, 240, 1440, 10080, 21600] as const;
export type OhlcInterval = (typeof OHLC_INTERVALS)[number];

/** One row of `[time, open, high, low, close, vwap, volume, count]`; decimals as the strings sent. */
export interface OhlcRow {
  /** Start of the candle, unix seconds. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  vwap: string;
  volume: string;
  count: number;
}

export interface OhlcPage {
  /** The canonical pair name the result is keyed by (XXBTZUSD for XBTUSD). */
  pairKey: string;
  /** Ascending; the final row is the still-forming candle. */
  rows: OhlcRow[];
  /** Start of the last committed candle; the next `since`. */
  last: number;
}

export interface KrakenOhlcOptions extends ProviderDeps {
  baseUrl: string;
  timeoutMs: number;
  health?: FeedHealth;
  retries?: number;
  initialDelayMs?: number;
}

/** Errors Kraken reports in a 200 answer that go away by themselves. */
const TRANSIENT_ERRORS = /^(EService:|EAPI:Rate limit|EGeneral:Temporary)/;

/** Kraken `GET /0/public/OHLC?pair=&interval=&since=`. */
export class KrakenOhlcClient {
  private readonly http: HttpProvider;
  /** A close more than 2× from the last accepted one of its pair and interval waits for a second answer. */
  private readonly guard: JumpGuard;

  constructor(private readonly opts: KrakenOhlcOptions) {
    this.guard = new JumpGuard();
    this.http = new HttpProvider({
      ...opts,
      health: undefined,
      name: KRAKEN,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
      timeoutMs: opts.timeoutMs,
      retries: opts.retries ?? 2,
      initialDelayMs: opts.initialDelayMs ?? 500,
      maxDelayMs: 10_000,
    });
  }

  /** The close last stored of a pair (as asked, XBTUSD) and interval: the first answer is judged against it. */
  accepted(pair: string, interval: OhlcInterval, close: string): void {
    this.guard.prime(`${pair}/${interval}`, close, BTC_FIAT);
  }

  private trusted(page: OhlcPage, pair: string, interval: OhlcInterval, since: number | undefined): OhlcPage {
    const key = `${pair}/${interval}`;
    // A candle starts at most one interval ahead of our clock (the forming one starts before it).
    const ahead = { now: this.opts.clock.now(), ms: interval * 60_000 };
    const why: string[] = [];
    const rows = page.rows.filter((r) => {
      const refused = refusal(r, since, ahead, this.guard, key);
      if (refused) why.push(refused);
      return refused === null;
    });
    if (why.length > 0)
      this.opts.health?.reject(
        `${why.length} OHLC rows of ${key} refused: ${why.slice(0, 3).join('; ')}`,
        why.length,
      );
    return { ...page, rows };
  }

  async ohlc(
    pair: string,
    interval: OhlcInterval,
    o: { since?: number; signal?: AbortSignal } = {},
  ): Promise<OhlcPage> {
    try {
      const body = await this.http.get<unknown>('/0/public/OHLC', {
        query: { pair, interval, since: o.since },
        signal: o.signal,
      });
      const parsed = parseOhlc(body, pair);
      // the answer arrived: what of it is refused marks the feed after this
      this.opts.health?.success();
      return this.trusted(parsed, pair, interval, o.since);
    } catch (e) {
      this.opts.health?.failure(e);
      throw e;
    }
  }
}

const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * Why a row is refused (dropped, and counted in /health), or null: a start before the asked
 * `since` or more than `ahead.ms` after our clock, open and close not inside [low, high], a price
 * outside BTC_FIAT, a volume outside CANDLE_VOLUME, a close over 2× from the last accepted.
 */
function refusal(
  row: OhlcRow,
  since: number | undefined,
  ahead: { now: Date; ms: number },
  guard: JumpGuard,
  key: string,
) {
  if (since !== undefined && row.time < since) return `${row.time} is before since ${since}`;
  const future = futureRefusal('a candle', new Date(row.time * 1000), ahead.now, ahead.ms);
  if (future) return future;
  const [o, h, l, c] = [row.open, row.high, row.low, row.close].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  if (!(l <= Math.min(o, c) && h >= Math.max(o, c) && l > 0))
    return `${row.time}: open or close outside low..high`;
  if (![o, h, l, c].every((p) => inRange(p, BTC_FIAT)) || Number(row.vwap) > BTC_FIAT.max)
    return `${row.time}: a price outside ${BTC_FIAT.min}..${BTC_FIAT.max}`;
  if (!inRange(row.volume, CANDLE_VOLUME)) return `${row.time}: volume ${row.volume} outside its bounds`;
  return guard.check(key, row.close, BTC_FIAT);
}

/** Validates Kraken's envelope and rows; a non-empty `error` array is a failure even with HTTP 200. */
export function parseOhlc(body: unknown, pair = '?'): OhlcPage {
  const fail = (message: string, transient = false) =>
    new ProviderError(KRAKEN, `OHLC ${pair}: ${message}`, { status: 200, transient });
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw fail('answer is not a JSON object');
  const { error, result } = body as { error?: unknown; result?: unknown };
  if (!Array.isArray(error)) throw fail('answer has no error array');
  if (error.length > 0) {
    const text = error.map(String).join(', ');
    throw fail(
      text,
      error.some((e) => TRANSIENT_ERRORS.test(String(e))),
    );
  }
  if (!result || typeof result !== 'object' || Array.isArray(result))
    throw fail('answer has no result object');
  const { last, ...keyed } = result as Record<string, unknown>;
  if (typeof last !== 'number' || !Number.isInteger(last)) throw fail('result.last is not an integer');
  const keys = Object.keys(keyed);
  const pairKey = keys[0];
  if (keys.length !== 1 || pairKey === undefined)
    throw fail(`expected one pair in result, got ${keys.length}`);
  const raw = keyed[pairKey];
  if (!Array.isArray(raw)) throw fail(`result.${pairKey} is not an array`);
  const rows = raw.map((r, i) => parseRow(r, (m) => fail(`row ${i}: ${m}`)));
  for (let i = 1; i < rows.length; i++)
    if (rows[i]!.time <= rows[i - 1]!.time) throw fail(`rows are not ascending at row ${i}`);
  return { pairKey, rows, last };
}

function parseRow(r: unknown, fail: (m: string) => Error): OhlcRow {
  if (!Array.isArray(r) || r.length < 8) throw fail('not an array of 8');
  const [time, open, high, low, close, vwap, volume, count] = r as unknown[];
  if (typeof time !== 'number' || !Number.isInteger(time) || time < 0) throw fail('time is not unix seconds');
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    throw fail('count is not an integer');
  const decimals = [open, high, low, close, vwap, volume];
  if (!decimals.every((d): d is string => typeof d === 'string' && DECIMAL.test(d)))
    throw fail('open, high, low, close, vwap and volume must be decimal strings');
  const [o, h, l, c, v, vol] = decimals;
  return { time, open: o!, high: h!, low: l!, close: c!, vwap: v!, volume: vol!, count };
}
