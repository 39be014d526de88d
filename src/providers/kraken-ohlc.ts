import type { FeedHealth } from '../shared/health.js';
import { Type } from 'typebox';
import { answer, malformed } from './answer.js';
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

const Decimal = (name: string) =>
  Type.String({ pattern: '^\\d+(\\.\\d+)?$', 'x-refused': `${name} is not a decimal string` });
/** `[time, open, high, low, close, vwap, volume, count]`: unix seconds, decimal strings, a count. */
const Row = Type.Tuple(
  [
    Type.Integer({ minimum: 0, 'x-refused': 'time is not unix seconds' }),
    ...['open', 'high', 'low', 'close', 'vwap', 'volume'].map(Decimal),
    Type.Integer({ minimum: 0, 'x-refused': 'count is not an integer' }),
  ],
  // what Kraken may add after the eight is not read
  { additionalItems: true },
);
/** Every Kraken answer: `{error: [...], result}`; a non-empty `error` is a failure even with HTTP 200. */
const Envelope = answer(KRAKEN, Type.Object({ error: Type.Array(Type.String()) }));
/** `result` holds `last` (the next `since`) and the rows under the pair's canonical name. */
const OhlcAnswer = answer(
  KRAKEN,
  Type.Object({
    result: Type.Object({ last: Type.Integer() }, { additionalProperties: Type.Array(Row) }),
  }),
);

/** Validates Kraken's envelope and rows. */
export function parseOhlc(body: unknown, pair = '?'): OhlcPage {
  const { error } = Envelope.parse(body, `OHLC ${pair}`);
  if (error.length > 0)
    throw new ProviderError(KRAKEN, `OHLC ${pair}: ${error.join(', ')}`, {
      status: 200,
      transient: error.some((e) => TRANSIENT_ERRORS.test(e)),
    });
  const { last, ...keyed } = OhlcAnswer.parse(body, `OHLC ${pair}`).result as { last: number } & Record<
    string,
    RawRow[]
  >;
  const keys = Object.keys(keyed);
  const pairKey = keys[0];
  if (keys.length !== 1 || pairKey === undefined)
    throw malformed(KRAKEN, `OHLC ${pair}: expected one pair in result, got ${keys.length}`);
  const rows = keyed[pairKey]!.map(([time, open, high, low, close, vwap, volume, count]): OhlcRow => ({
    time,
    open,
    high,
    low,
    close,
    vwap,
    volume,
    count,
  }));
  for (let i = 1; i < rows.length; i++)
    if (rows[i]!.time <= rows[i - 1]!.time)
      throw malformed(KRAKEN, `OHLC ${pair}: rows are not ascending at row ${i}`);
  return { pairKey, rows, last };
}

type RawRow = [number, string, string, string, string, string, string, number];
