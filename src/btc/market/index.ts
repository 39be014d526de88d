import type { AppContext, FeatureFactory } from '../../context.js';
import { leadershipOf, provideLeadership } from '../leadership.js';
import { ratesOf, type RatesService } from '../rates/contract.js';
import { AdvisoryLeadership } from './leader.js';
import { marketRoutes } from './routes.js';
import { DEFAULT_MARKET_OPTIONS, MarketService, type MarketOptions } from './service.js';

export interface MarketFeatureOptions extends Partial<MarketOptions> {
  leadershipIntervalMs?: number;
}

function ratesIfMounted(ctx: AppContext): RatesService | null {
  try {
    return ratesOf(ctx);
  } catch {
    ctx.log.warn('market: no rates feature in this process, so BTC/DKK stays null');
    return null;
  }
}

/** Spot price, broker quotes and their streams; the advisory-lock leadership of the btc pollers. */
export function createMarketFeature(options: MarketFeatureOptions = {}): FeatureFactory {
  return (ctx) => {
    let leadership: AdvisoryLeadership | null = null;
    if (ctx.config.database && ctx.database.kind === 'postgres') {
      leadership = new AdvisoryLeadership(ctx.config.database, {
        log: ctx.log,
        intervalMs: options.leadershipIntervalMs,
      });
      provideLeadership(ctx, leadership);
    }
    const market = new MarketService(ctx, ratesIfMounted(ctx), leadershipOf(ctx), {
      ...DEFAULT_MARKET_OPTIONS,
      ...options,
    });
    return {
      name: 'market',
      routes: (app) => marketRoutes(app, market),
      start: async () => {
        await leadership?.start();
        await market.start();
      },
      stop: async () => {
        await market.stop();
        await leadership?.stop();
      },
    };
  };
}

export const marketFeature = createMarketFeature();
