import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Database } from '../../db/connect.js';
import { whenAborted, type Job } from '../../jobs/job.js';
import { invalid, unavailable } from '../../shared/refusal.js';
import type { ProviderDeps } from '../../providers/http.js';
import { StrikeClient } from '../../providers/strike.js';
import { untilAborted } from '../../shared/abort.js';
import type { Clock } from '../../shared/clock.js';
import type { HealthRegistry } from '../../shared/health.js';
import { addDays, danishDayBounds } from '../../shared/danish-time.js';
import { Topic } from '../../shared/topic.js';
import type { RatesService } from '../rates/service.js';
import * as repo from './repository.js';
import { priceMessage, quoteMessage } from './messages.js';
import { QUOTE_CHANNEL, QuoteFeed, type QuoteOptions } from './quotes.js';
import { RowFollower } from './follower.js';
import type { PremiumList, PriceMessage, QuoteMessage } from './schemas.js';
import { BTC_PRICE_CHANNEL, BtcPriceFeed, type BtcPriceFeedOptions } from './btc-price.js';

export interface MarketDeps {
  /** Listens for the rows other processes store. */
  database: Database;
  clock: Clock;
  log: Logger;
  health: HealthRegistry;
  shutdown: AbortSignal;
  rates: RatesService;
  providers: { krakenWs: ProviderDeps; strike: ProviderDeps };
  config: Pick<Config, 'feeds' | 'urls' | 'strikeApiKey' | 'providerTimeoutMs' | 'quoteTotalEur'>;
}

export type MarketOptions = BtcPriceFeedOptions & QuoteOptions;

/** A year and a bit of hours (some 9,600 buckets) in one answer at most. */
const MAX_PREMIUM_DAYS = 400;

export const DEFAULT_MARKET_OPTIONS: MarketOptions = {
  watchdogMs: 5_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  storeIntervalMs: 100,
  intervalMs: 10_000,
  rateLimitBackoffMs: 60_000,
};

/**
 * The market data of one process: pollers that run while this process leads (its jobs), and
 * the price and quote messages, which every process follows from the stored rows and tells
 * whoever listens (the streams at the edge, which know the sockets).
 */
export class MarketService {
  /** Every price message: the leader's as it composes them, then each newer stored row. */
  readonly prices = new Topic<PriceMessage>();
  readonly quotes = new Topic<QuoteMessage>();
  private readonly priceFollower: RowFollower<repo.SpotPriceRow, PriceMessage>;
  private readonly quoteFollower: RowFollower<repo.QuoteRow, QuoteMessage>;
  private readonly spot: BtcPriceFeed | null;
  private readonly quoteFeed: QuoteFeed;
  private readonly cleanups: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly deps: MarketDeps,
    opts: MarketOptions = DEFAULT_MARKET_OPTIONS,
  ) {
    const { database, clock, log, health, config } = deps;
    const { db } = database;
    const logError = (e: unknown) => log.error({ err: e }, 'market: reading the latest row failed');
    this.priceFollower = new RowFollower(
      (m) => this.prices.publish(m),
      () => repo.latestPrice(db),
      priceMessage,
      logError,
    );
    this.quoteFollower = new RowFollower(
      (m) => this.quotes.publish(m),
      () => repo.latestQuote(db),
      quoteMessage,
      logError,
    );
    this.spot = config.feeds.btcPrice
      ? new BtcPriceFeed(
          {
            db,
            clock,
            log,
            health: health.feed('spot', true),
            url: config.urls.spot,
            provider: deps.providers.krakenWs,
          },
          deps.rates,
          opts,
          (row) => this.prices.publish(priceMessage(row)),
          (id) => this.priceFollower.seen(id),
        )
      : null;
    health.feed('spot', config.feeds.btcPrice);
    const { quote: enabled } = config.feeds;
    const key = config.strikeApiKey;
    const offReason = !enabled ? 'QUOTE_FEED_ENABLED is false' : !key ? 'STRIKE_API_KEY is not set' : null;
    const client =
      enabled && key
        ? new StrikeClient({
            ...deps.providers.strike,
            baseUrl: config.urls.quote,
            apiKey: key,
            timeoutMs: config.providerTimeoutMs,
            health: health.feed('quote', true),
          })
        : null;
    if (!client) {
      health.feed('quote', false).detail = `off: ${offReason}`;
      if (enabled) log.info('quote feed is off: STRIKE_API_KEY is not set');
    }
    this.quoteFeed = new QuoteFeed(
      { db, clock, log, shutdown: deps.shutdown, quoteTotalEur: config.quoteTotalEur },
      client,
      offReason,
      opts,
      (row) => this.quoteFollower.published(row),
    );
  }

  /** The pollers, run by the holder of the btc poller lock: the spot feed's connection and the quotes. */
  jobs(): Job[] {
    const { spot } = this;
    const quotes = this.quoteFeed.job();
    const jobs: Job[] = quotes ? [quotes] : [];
    if (spot)
      jobs.unshift({
        name: 'spot',
        schedule: { once: true },
        lock: 'btcPollers',
        health: this.deps.health.feed('spot'),
        standby: 'standby: another process holds the poller lock',
        // the connection is kept while this process leads
        round: async (signal) => {
          spot.start();
          await whenAborted(signal);
          await spot.stop();
        },
      });
    return jobs;
  }

  async start(): Promise<void> {
    const { database } = this.deps;
    this.cleanups.push(await database.listen(BTC_PRICE_CHANNEL, (p) => this.priceFollower.wake(p)));
    this.cleanups.push(await database.listen(QUOTE_CHANNEL, (p) => this.quoteFollower.wake(p)));
    // The stored latest rows first, so that nothing newer is overtaken by them.
    this.priceFollower.wake();
    this.quoteFollower.wake();
    await this.priceFollower.idle();
    await this.quoteFollower.idle();
    if (this.spot) {
      const spot = this.spot;
      this.cleanups.push(this.deps.rates.onChange(() => spot.ratesChanged()));
    }
  }

  async stop(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c();
    await this.spot?.stop();
    await this.quoteFeed.idle();
    await this.priceFollower.idle();
    await this.quoteFollower.idle();
  }

  async latestPrice(): Promise<PriceMessage> {
    const row = await repo.latestPrice(this.deps.database.db);
    if (!row) throw unavailable('no spot price has arrived yet from the kraken spot feed');
    return priceMessage(row);
  }

  async latestQuote(): Promise<QuoteMessage> {
    const row = await repo.latestQuote(this.deps.database.db);
    if (!row) throw unavailable('no quote has been obtained yet from the strike quote feed');
    return quoteMessage(row);
  }

  /** The premiums of the quotes of the Danish days from..to (both included), by hour or day. */
  async premium(from: string, to: string, resolution: repo.PremiumResolution): Promise<PremiumList> {
    if (from > to) throw invalid(`from (${from}) is after to (${to})`);
    if (addDays(from, MAX_PREMIUM_DAYS - 1) < to)
      throw invalid(`from..to spans more than ${MAX_PREMIUM_DAYS} days; ask for less`);
    const rows = await repo.premiumBuckets(
      this.deps.database.db,
      danishDayBounds(from).start,
      danishDayBounds(to).end,
      resolution,
    );
    return {
      items: rows.map((r) => ({
        time: r.time.toISOString(),
        quotes: r.quotes,
        spread_pct_avg: Number(r.spread_pct_avg),
        spread_pct_min: Number(r.spread_pct_min),
        spread_pct_max: Number(r.spread_pct_max),
        all_in_pct_avg: Number(r.all_in_pct_avg),
      })),
    };
  }

  /** The quote is shared with concurrent callers and the poller; `signal` only stops this caller's wait. */
  async quoteNow(signal?: AbortSignal): Promise<QuoteMessage> {
    return quoteMessage(await untilAborted(this.quoteFeed.quoteNow(), signal));
  }
}
