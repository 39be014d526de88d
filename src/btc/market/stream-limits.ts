import { Refusal } from '../../shared/refusal.js';

export interface StreamLimits {
  /** Price and quote streams (WebSocket and SSE) open at once, in all. */
  maxClients: number;
  /** The same, per client address. */
  maxPerAddress: number;
  /** The Retry-After of a refusal, in seconds. */
  retryAfterS: number;
}

/**
 * Counts open streams in all and per client address. A slot is taken before a WebSocket
 * upgrade or an event stream begins, so a refusal is a plain HTTP answer: 429 when the
 * address has its share, 503 when the server has all it takes; both with Retry-After.
 */
export class StreamLimiter {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: StreamLimits) {}

  get open(): number {
    return this.total;
  }

  openFrom(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }

  /** Takes a slot for `address`, or throws the refusal; the returned release may be called any number of times. */
  acquire(address: string): () => void {
    const { maxClients, maxPerAddress, retryAfterS } = this.limits;
    const mine = this.openFrom(address);
    if (mine >= maxPerAddress)
      throw new Refusal(
        'too-many',
        `this client address has ${mine} streams open, the most it may (STREAM_MAX_PER_ADDRESS); close one or retry in ${retryAfterS} s`,
        retryAfterS,
      );
    if (this.total >= maxClients)
      throw new Refusal(
        'unavailable',
        `the server has ${this.total} streams open, the most it takes (STREAM_MAX_CLIENTS); retry in ${retryAfterS} s`,
        retryAfterS,
      );
    this.total++;
    this.byAddress.set(address, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.openFrom(address) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
    };
  }
}
