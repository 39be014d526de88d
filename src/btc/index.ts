import type { AppContext, Feature } from '../context.js';
import { createCandlesFeature } from './candles/index.js';
import { createChainFeature } from './chain/index.js';
import { createLeadership } from './leadership.js';
import { createImportsFeature } from './imports/index.js';
import { createLedgerFeature } from './ledger/index.js';
import { createMarketFeature } from './market/index.js';
import { createPortfolioFeature } from './portfolio/index.js';
import { createRatesFeature, createRatesService } from './rates/index.js';
import { createRetentionFeature } from './retention/index.js';

/**
 * The btc service. Leadership and rates are created once and passed to the features that need
 * them; leadership starts first, so every poller sees whether this process leads.
 */
export function btcService(ctx: AppContext): Feature[] {
  const { leadership, feature: leadershipFeature } = createLeadership(ctx);
  const rates = createRatesService(ctx);
  return [
    leadershipFeature,
    createRatesFeature(ctx, { rates, leadership }),
    createCandlesFeature(ctx, { leadership }),
    createLedgerFeature(ctx, { rates }),
    createImportsFeature(ctx, { rates }),
    createChainFeature(ctx, { leadership }),
    createMarketFeature(ctx, { rates, leadership }),
    createPortfolioFeature(ctx, { rates }),
    createRetentionFeature(ctx, { leadership }),
  ];
}
