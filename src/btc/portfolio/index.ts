import type { AppContext, Feature } from '../../context.js';
import type { RatesService } from '../rates/service.js';
import { portfolioRoutes } from './routes.js';
import { PortfolioService } from './service.js';

/** The ledger's holdings at the market's price; the rates give BTC/DKK of past days. */
export function portfolioServiceOf(ctx: AppContext, rates: RatesService): PortfolioService {
  return new PortfolioService({
    db: ctx.database.db,
    clock: ctx.clock,
    rates,
    log: ctx.log.child({ feature: 'portfolio' }),
    shutdown: ctx.shutdown,
  });
}

/** GET /api/portfolio. */
export function createPortfolioFeature(deps: { portfolio: PortfolioService }): Feature {
  return { name: 'portfolio', routes: (app) => portfolioRoutes(app, deps.portfolio) };
}
