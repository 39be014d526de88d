import { createImportsFeature } from '../../src/btc/imports/index.js';
import { ALWAYS_LEADER } from '../../src/btc/leadership.js';
import { createLedgerFeature } from '../../src/btc/ledger/index.js';
import { createMarketFeature } from '../../src/btc/market/index.js';
import type { MarketOptions } from '../../src/btc/market/service.js';
import { createPortfolioFeature } from '../../src/btc/portfolio/index.js';
import type { RatesService } from '../../src/btc/rates/service.js';
import type { AppContext, Feature, ServiceFactory, Services } from '../../src/context.js';

const none: ServiceFactory = () => [];

/** Only the given btc features and no power service. */
export function btcOnly(btc: ServiceFactory): Partial<Services> {
  return { btc, power: none };
}

/** Only the given power features and no btc service. */
export function powerOnly(power: ServiceFactory): Partial<Services> {
  return { btc: none, power };
}

/** The ledger alone, converting with the given rates. */
export function ledgerOnly(rates: RatesService): Partial<Services> {
  return btcOnly((ctx) => [createLedgerFeature(ctx, { rates })]);
}

/** The ledger and its imports, converting with the given rates. */
export function ledgerAndImports(rates: RatesService): Partial<Services> {
  return btcOnly((ctx) => [createLedgerFeature(ctx, { rates }), createImportsFeature(ctx, { rates })]);
}

/** A feature that only adds routes, for tests of the app's shared hooks. */
export function routesOnly(name: string, routes: NonNullable<Feature['routes']>): Partial<Services> {
  return btcOnly(() => [{ name, routes }]);
}

/** The market feature alone, leading, on the given rates. */
export function marketOnly(rates: RatesService, options: Partial<MarketOptions> = {}): Partial<Services> {
  return btcOnly((ctx) => [createMarketFeature(ctx, { rates, leadership: ALWAYS_LEADER }, options)]);
}

/** The ledger and the portfolio over the same rates (fake ones, or the real service on a fake provider). */
export function ledgerAndPortfolio(
  rates: RatesService | ((ctx: AppContext) => RatesService),
): Partial<Services> {
  return btcOnly((ctx) => {
    const r = typeof rates === 'function' ? rates(ctx) : rates;
    return [createLedgerFeature(ctx, { rates: r }), createPortfolioFeature(ctx, { rates: r })];
  });
}
