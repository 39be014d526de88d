import type { Socket } from 'node:net';
import type { Config } from '../../config.js';
import { Broadcast, type BroadcastOptions } from '../../http/broadcast.js';
import type { Clock } from '../../shared/clock.js';
import type { MarketService } from './service.js';
import { StreamLimiter } from './stream-limits.js';

export type StreamOptions = Required<BroadcastOptions> & {
  sseKeepAliveMs: number;
  streamRetryAfterS: number;
};

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  minIntervalMs: 100,
  maxBufferedBytes: 256 * 1024,
  sseKeepAliveMs: 15_000,
  pingIntervalMs: 30_000,
  streamRetryAfterS: 30,
};

/**
 * The market's streams at the HTTP edge: the price and quote messages the service tells, fanned
 * out to WebSocket and SSE clients, and the limit on how many are open.
 */
export class MarketStreams {
  readonly price: Broadcast;
  readonly quote: Broadcast;
  readonly limiter: StreamLimiter;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    market: Pick<MarketService, 'prices' | 'quotes'>,
    deps: { clock: Clock; limits: Config['streams'] },
    opts: StreamOptions = DEFAULT_STREAM_OPTIONS,
  ) {
    this.limiter = new StreamLimiter({ ...deps.limits, retryAfterS: opts.streamRetryAfterS });
    this.price = new Broadcast(opts, deps.clock);
    this.quote = new Broadcast(opts, deps.clock);
    this.cleanups.push(market.prices.listen((m) => this.price.publish(m)));
    this.cleanups.push(market.quotes.listen((m) => this.quote.publish(m)));
    const keepAlive = setInterval(() => this.price.keepAlive(), opts.sseKeepAliveMs);
    keepAlive.unref();
    this.cleanups.push(() => clearInterval(keepAlive));
  }

  /**
   * A stream slot for a client address, taken before the upgrade or the event stream begins
   * (throws the 429 or 503 refusal) and given back when the connection closes.
   */
  admit(address: string, connection: Socket): void {
    const release = this.limiter.acquire(address);
    connection.once('close', release);
  }

  /** Closes every client's stream (the server is stopping). */
  close(): void {
    for (const c of this.cleanups.splice(0)) c();
    this.price.close();
    this.quote.close();
  }
}
