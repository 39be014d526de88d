import type { Db } from '../../db/schema.js';
import type { KrakenOhlcClient, OhlcInterval, OhlcRow } from '../../providers/kraken-ohlc.js';
import type { Clock } from '../../shared/clock.js';
import { sleep } from '../../shared/sleep.js';
import * as repo from './repository.js';
import type { CandleTableName } from './tables.js';

export type CandleKind = 'minute' | 'hour' | 'day';

export const KINDS: Record<
  CandleKind,
  { table: CandleTableName; interval: OhlcInterval; closedOnly: boolean }
> = {
  minute: { table: 'btc.candles_minute', interval: 1, closedOnly: false },
  hour: { table: 'btc.candles_hour', interval: 60, closedOnly: true },
  day: { table: 'btc.candles_day', interval: 1440, closedOnly: true },
};

/** Our pair names and Kraken's query names. */
export const PAIRS = [
  { pair: 'BTC/USD', kraken: 'XBTUSD' },
  { pair: 'BTC/EUR', kraken: 'XBTEUR' },
] as const;
export type Pair = (typeof PAIRS)[number]['pair'];

export interface CandleDeps {
  db: Db;
  client: KrakenOhlcClient;
  clock: Clock;
  /** Least time between two provider calls; Kraken allows public calls at about 1 per second. */
  minGapMs?: number;
}

export class CandleService {
  private nextCallAt = 0;
  /** Interval and pair whose last stored close the client was given, once after each start. */
  private readonly primed = new Set<string>();

  constructor(private readonly deps: CandleDeps) {}

  /**
   * One poll of one interval and pair, resuming from the last stored candle. The 1-minute table
   * takes every row and overwrites the forming candle; the hourly and daily tables take only
   * rows up to `last` (closed) and never overwrite. Returns the rows written.
   */
  async poll(kind: CandleKind, pair: (typeof PAIRS)[number], signal?: AbortSignal): Promise<number> {
    const { table, interval, closedOnly } = KINDS[kind];
    const last = await repo.lastCandle(this.deps.db, table, pair.pair);
    if (last && !this.primed.has(`${kind}/${pair.pair}`)) {
      this.deps.client.accepted(pair.kraken, interval, last.close);
      this.primed.add(`${kind}/${pair.pair}`);
    }
    // Kraken answers candles newer than `since`: from the last stored one itself when it may
    // have been stored while still forming, else from just after it.
    const since =
      last === undefined ? undefined : last.time.getTime() / 1000 - (closedOnly ? 0 : interval * 60);
    await this.spaced(signal);
    const page = await this.deps.client.ohlc(pair.kraken, interval, { since, signal });
    const rows = (closedOnly ? page.rows.filter((r) => r.time <= page.last) : page.rows).map((r) =>
      toCandleRow(pair.pair, r),
    );
    return closedOnly
      ? repo.insertClosedCandles(this.deps.db, table, rows)
      : repo.upsertCandles(this.deps.db, table, rows);
  }

  /** Polls every pair of an interval; one pair's failure does not keep the other from polling. */
  async pollAll(kind: CandleKind, signal?: AbortSignal): Promise<number> {
    let written = 0;
    let failure: Error | null = null;
    for (const pair of PAIRS) {
      try {
        written += await this.poll(kind, pair, signal);
      } catch (e) {
        failure ??= e instanceof Error ? e : new Error(String(e));
      }
    }
    if (failure !== null) throw failure;
    return written;
  }

  /** Waits for this call's turn, so the three pollers together stay inside Kraken's rate limit. */
  private async spaced(signal: AbortSignal = new AbortController().signal): Promise<void> {
    const gap = this.deps.minGapMs ?? 0;
    const now = this.deps.clock.monotonicMs();
    const at = Math.max(now, this.nextCallAt);
    this.nextCallAt = at + gap;
    if (at > now) await sleep(at - now, signal);
  }

  latest(kind: CandleKind, pair: Pair, limit: number): Promise<repo.CandleRow[]> {
    return repo.latestCandles(this.deps.db, KINDS[kind].table, pair, limit);
  }
}

function toCandleRow(pair: string, r: OhlcRow): repo.CandleRow {
  return {
    pair,
    time: new Date(r.time * 1000),
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    vwap: r.vwap,
    volume: r.volume,
    trades: r.count,
  };
}
