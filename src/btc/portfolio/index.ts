import type { AppContext, Feature } from '../../context.js';
import type { RatesService } from '../rates/service.js';
import { portfolioRoutes } from './routes.js';
import { PortfolioService } from './service.js';

/** GET /api/portfolio: the ledger's holdings at the market's price; the rates give BTC/DKK of past days. */
export function createPortfolioFeature(
  ctx: AppContext,
  deps: { rates: RatesService },
): Feature & { portfolio: PortfolioService } {
  const portfolio = new PortfolioService({
    db: ctx.database.db,
    clock: ctx.clock,
    rates: deps.rates,
    log: ctx.log.child({ feature: 'portfolio' }),
    shutdown: ctx.shutdown,
  });
  return { name: 'portfolio', portfolio, routes: (app) => portfolioRoutes(app, portfolio) };
}
