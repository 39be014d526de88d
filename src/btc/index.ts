import type { AppContext, Composition, Feature } from '../context.js';
import { createCandlesFeature, type CandlesOptions } from './candles/index.js';
import { chainServiceOf, createChainFeature } from './chain/index.js';
import type { ChainService } from './chain/service.js';
import { createImportsFeature } from './imports/index.js';
import { createLedgerFeature } from './ledger/index.js';
import { createMarketFeature, marketServiceOf, marketStreamsOf } from './market/index.js';
import type { MarketOptions, MarketService } from './market/service.js';
import type { StreamOptions } from './market/streams.js';
import { createPortfolioFeature, portfolioServiceOf } from './portfolio/index.js';
import type { PortfolioService } from './portfolio/service.js';
import { createRatesFeature, createRatesService } from './rates/index.js';
import type { RatesSchedule } from './rates/scheduler.js';
import type { RatesService } from './rates/service.js';
import {
  createRetentionFeature,
  retentionServiceOf,
  type RetentionFeatureOptions,
} from './retention/index.js';
import type { RetentionService } from './retention/service.js';
import { createTaxFeature, taxServiceOf } from './tax/index.js';

/** The btc features, in the order they start. */
export const BTC_FEATURES = [
  'rates',
  'candles',
  'ledger',
  'imports',
  'chain',
  'market',
  'portfolio',
  'tax',
  'retention',
] as const;
export type BtcFeature = (typeof BTC_FEATURES)[number];

/** The btc services by name, as far as their features are mounted. */
export interface BtcServices {
  rates: RatesService;
  market: MarketService | null;
  portfolio: PortfolioService | null;
  chain: ChainService | null;
  retention: RetentionService | null;
}

export interface BtcOptions {
  /**
   * The rates every feature converts with (tests' memory rates). Unless given, the stored days
   * and Frankfurter, with the rates feature that refreshes them.
   */
  rates?: RatesService;
  /** The features mounted (in the order of BTC_FEATURES); all unless told. */
  only?: readonly BtcFeature[];
  ratesSchedule?: Partial<RatesSchedule>;
  candles?: CandlesOptions;
  market?: Partial<MarketOptions & StreamOptions>;
  chain?: { firstRunDelayMs?: number };
  retention?: RetentionFeatureOptions;
}

/**
 * The btc service. What several features share (the rates) is made once and passed to each;
 * the leader-only pollers are jobs of the btc poller lock, which the runtime holds.
 */
export function btcService(ctx: AppContext, opts: BtcOptions = {}): Composition<BtcServices> {
  const on = (f: BtcFeature) => !opts.only || opts.only.includes(f);
  const stored = opts.rates ? null : createRatesService(ctx);
  const rates: RatesService = opts.rates ?? stored!;
  const market = on('market') ? marketServiceOf(ctx, { rates }, opts.market) : null;
  const portfolio = on('portfolio') ? portfolioServiceOf(ctx, rates) : null;
  const chain = on('chain') ? chainServiceOf(ctx) : null;
  const retention = on('retention') ? retentionServiceOf(ctx, opts.retention) : null;
  const features: (Feature | null)[] = [
    stored && on('rates') ? createRatesFeature(ctx, { rates: stored }, opts.ratesSchedule) : null,
    on('candles') ? createCandlesFeature(ctx, opts.candles) : null,
    on('ledger') ? createLedgerFeature(ctx, { rates }) : null,
    on('imports') ? createImportsFeature(ctx, { rates }) : null,
    chain && createChainFeature(ctx, { chain }, opts.chain),
    market && createMarketFeature({ market, streams: marketStreamsOf(ctx, market, opts.market) }),
    portfolio && createPortfolioFeature({ portfolio }),
    on('tax') ? createTaxFeature({ tax: taxServiceOf(ctx, rates) }) : null,
    retention && createRetentionFeature(ctx, { retention }, opts.retention),
  ];
  return {
    features: features.filter((f) => f !== null),
    services: { rates, market, portfolio, chain, retention },
  };
}
