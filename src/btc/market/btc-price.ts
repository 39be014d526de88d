import { Big } from 'big.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import type { ProviderDeps } from '../../providers/http.js';
import { KrakenTickerClient, type KrakenTick } from '../../providers/kraken-ws.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import type { DailyRates, RatesService } from '../rates/service.js';
import * as repo from './repository.js';
import type { SpotPriceRow } from './repository.js';

export const BTC_PRICE_CHANNEL = 'btc_price';
const SYMBOLS = { usd: 'BTC/USD', eur: 'BTC/EUR' } as const;
const KEEP_MS = 60 * 60_000;
const PRUNE_EVERY = 500;

export interface BtcPriceFeedOptions {
  watchdogMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Ticks closer together than this are stored (and published) as one row, the newest. */
  storeIntervalMs: number;
}

export interface SpotDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  health: FeedHealth;
  /** Kraken's WebSocket address. */
  url: string;
  provider: ProviderDeps;
}

interface Side {
  price: string;
  at: Date;
}

/** BTC/DKK = BTC/EUR × EUR/DKK, exact; null while no rate is known (never a made-up number). */
export function composePrice(usd: Side, eur: Side, rates: DailyRates | null): Omit<SpotPriceRow, 'id'> {
  return {
    at: usd.at > eur.at ? usd.at : eur.at,
    btc_usd: usd.price,
    btc_eur: eur.price,
    btc_dkk: rates ? new Big(eur.price).times(rates.eur_dkk).toFixed() : null,
    rates: rates
      ? { date: rates.date, usd_eur: rates.usd_eur, usd_dkk: rates.usd_dkk, eur_dkk: rates.eur_dkk }
      : null,
  };
}

/**
 * The leader's spot feed: Kraken ticks for BTC/USD and BTC/EUR, combined with the latest
 * rates, at most one row per interval. Each row goes to `onComposed` before it is stored (this
 * process's clients need not wait for the database) and its id to `onStored` after.
 */
export class BtcPriceFeed {
  private usd: Side | null = null;
  private eur: Side | null = null;
  private client: KrakenTickerClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private storing: Promise<void> | null = null;
  private dirty = false;
  private lastStoreAt = -Infinity;
  private inserts = 0;

  constructor(
    private readonly deps: SpotDeps,
    private readonly rates: RatesService,
    private readonly opts: BtcPriceFeedOptions,
    private readonly onComposed: (row: Omit<SpotPriceRow, 'id'>) => void,
    private readonly onStored: (id: number) => void,
  ) {}

  get malformed(): number {
    return this.client?.malformed ?? 0;
  }

  start(): void {
    if (this.client) return;
    this.client = new KrakenTickerClient({
      url: this.deps.url,
      symbols: [SYMBOLS.usd, SYMBOLS.eur],
      health: this.deps.health,
      log: this.deps.log,
      ...this.deps.provider,
      onTick: (tick, at) => this.onTick(tick, at),
      watchdogMs: this.opts.watchdogMs,
      initialBackoffMs: this.opts.initialBackoffMs,
      maxBackoffMs: this.opts.maxBackoffMs,
    });
    void this.primeAndStart(this.client);
  }

  /** The latest stored prices judge the first ticks (a first tick of 1e300 is refused, not served). */
  private async primeAndStart(client: KrakenTickerClient): Promise<void> {
    try {
      const last = await repo.latestPrice(this.deps.db);
      if (last) {
        client.accepted(SYMBOLS.usd, last.btc_usd);
        client.accepted(SYMBOLS.eur, last.btc_eur);
      }
    } catch (e) {
      this.deps.log.warn(
        { err: e },
        'spot feed: the latest stored price could not be read; the first ticks are judged by their bounds only',
      );
    }
    // stopped (or stopped and started again) while the price was read
    if (this.client === client) client.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await c?.stop();
    await this.storing;
  }

  /** A new EUR/DKK rate changes BTC/DKK even when the spot price stands still. */
  ratesChanged(): void {
    if (this.client) this.schedule();
  }

  private onTick(tick: KrakenTick, receivedAt: Date): void {
    const side = { price: String(tick.last), at: tick.timestamp ?? receivedAt };
    if (tick.symbol === SYMBOLS.usd) this.usd = side;
    else if (tick.symbol === SYMBOLS.eur) this.eur = side;
    else return;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastStoreAt + this.opts.storeIntervalMs - this.deps.clock.monotonicMs();
    this.timer = setTimeout(() => this.store(), Math.max(0, wait));
  }

  private store(): void {
    this.timer = null;
    if (!this.usd || !this.eur) return;
    if (this.storing) {
      this.dirty = true;
      return;
    }
    this.lastStoreAt = this.deps.clock.monotonicMs();
    const row = composePrice(this.usd, this.eur, this.rates.latest());
    this.onComposed(row);
    this.storing = this.persist(row).finally(() => {
      this.storing = null;
      if (this.dirty) {
        this.dirty = false;
        this.schedule();
      }
    });
  }

  private async persist(row: Omit<SpotPriceRow, 'id'>): Promise<void> {
    const { db } = this.deps;
    try {
      const id = await repo.insertPrice(db, row);
      this.onStored(id);
      await repo.notify(db, BTC_PRICE_CHANNEL, String(id));
      // by the earlier of the row's time and our clock: no stamp, however wrong, prunes more
      const newest = Math.min(row.at.getTime(), this.deps.clock.now().getTime());
      if (++this.inserts % PRUNE_EVERY === 0) await repo.prunePrices(db, new Date(newest - KEEP_MS));
    } catch (e) {
      this.deps.log.error({ err: e }, 'spot feed: storing the price failed');
    }
  }
}
