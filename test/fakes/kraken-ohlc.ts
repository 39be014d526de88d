import Big from 'big.js';
import { FakeHttpServer, type FakeReply, type FakeRequest } from './http.js';

/**
 * A fake Kraken `GET /0/public/OHLC` in its wire format (docs/providers.md): rows ascending
 * `[time, "open", "high", "low", "close", "vwap", "volume", count]`, at most the 720 latest, the
 * final one the still-forming candle (its values change with every `tick()`), `last` the start of
 * the last committed candle, result keyed by the canonical pair name, errors as HTTP 200 with a
 * non-empty `error` array.
 */
export const CANONICAL: Record<string, string> = { XBTUSD: 'XXBTZUSD', XBTEUR: 'XXBTZEUR' };
const INTERVALS = [1, 5, 15, 30, 60, 240, 1440, 10080, 21600];
export const MAX_ROWS = 720;

export type OhlcWireRow = [number, string, string, string, string, string, string, number];

export class FakeKrakenOhlc {
  /** The provider's now, unix seconds; tests move it. */
  now: number;
  /** Changes the forming candle's values on each poll. */
  private revision = 0;
  /** When set, committed candles are generated differently (to see that closed ones are never rewritten). */
  salt = 0;
  /** When set, `since` is ignored and the whole window is answered. */
  ignoreSince = false;
  /** When each request was answered (ms), to see the client's spacing. */
  readonly answeredAt: number[] = [];

  private constructor(
    readonly server: FakeHttpServer,
    now: number,
  ) {
    this.now = now;
  }

  static async start(now: number): Promise<FakeKrakenOhlc> {
    const server = await FakeHttpServer.start();
    const fake = new FakeKrakenOhlc(server, now);
    server.on('GET', '/0/public/OHLC', (req) => fake.answer(req));
    return fake;
  }

  get url() {
    return this.server.url;
  }

  tick(): void {
    this.revision++;
  }

  /** The committed candle of a pair and interval that starts at `time`. */
  committed(pair: string, interval: number, time: number): OhlcWireRow {
    return candle(pair, interval, time, this.salt, null);
  }

  /** The forming candle as the next answer would show it. */
  forming(pair: string, interval: number): OhlcWireRow {
    const start = Math.floor(this.now / (interval * 60)) * interval * 60;
    return candle(pair, interval, start, this.salt, this.revision);
  }

  answer(req: FakeRequest): FakeReply {
    this.answeredAt.push(performance.now());
    const pair = req.query.get('pair') ?? '';
    const interval = Number(req.query.get('interval') ?? '1');
    const canonical = CANONICAL[pair];
    if (!canonical) return { json: { error: ['EQuery:Unknown asset pair'], result: {} } };
    if (!INTERVALS.includes(interval)) return { json: { error: ['EGeneral:Invalid arguments'], result: {} } };
    const step = interval * 60;
    const formingStart = Math.floor(this.now / step) * step;
    const sinceText = req.query.get('since');
    const since = sinceText === null || this.ignoreSince ? -Infinity : Number(sinceText);
    const rows: OhlcWireRow[] = [];
    for (let t = formingStart - (MAX_ROWS - 1) * step; t < formingStart; t += step)
      if (t > since) rows.push(this.committed(pair, interval, t));
    rows.push(this.forming(pair, interval));
    return { json: { error: [], result: { [canonical]: rows, last: formingStart - step } } };
  }
}

/** Deterministic decimals: a price walk by start time; the forming candle moves with `revision`. */
function candle(
  pair: string,
  interval: number,
  time: number,
  salt: number,
  revision: number | null,
): OhlcWireRow {
  const base = pair === 'XBTEUR' ? 38_000 : 42_000;
  const wave = ((time / 60) * 7 + interval * 13 + salt * 101) % 2000;
  const open = new Big(base).plus(new Big(wave).div(10));
  const close = revision === null ? open.plus(new Big(wave % 37).minus(18)) : open.plus(revision).plus('0.5');
  const high = (open.gt(close) ? open : close).plus('12.3');
  const low = (open.lt(close) ? open : close).minus('9.7');
  const vwap = open.plus(close).div(2).round(1);
  const volume = new Big(wave)
    .div(7)
    .plus(revision ?? 0)
    .round(8);
  return [
    time,
    open.toFixed(1),
    high.toFixed(1),
    low.toFixed(1),
    close.toFixed(1),
    vwap.toFixed(1),
    volume.toFixed(8),
    100 + (wave % 900) + (revision ?? 0),
  ];
}
