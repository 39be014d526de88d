import { btcService, type BtcOptions, type BtcServices } from '../../src/btc/index.js';
import type { MarketOptions } from '../../src/btc/market/service.js';
import type { StreamOptions } from '../../src/btc/market/streams.js';
import type { RatesService } from '../../src/btc/rates/service.js';
import type { AppContext, Composition, Feature } from '../../src/context.js';
import type { PowerServices } from '../../src/power/index.js';
import type { Services } from '../../src/services.js';

/** A test's own features, which answer the other features (MQTT) nothing, or a service's composition. */
type Made<S> = Feature[] | Composition<S | null>;

const composition = <S>(made: Made<S>): Composition<S | null> =>
  Array.isArray(made) ? { features: made, services: null } : made;

const none = () => ({ features: [], services: null });

/** Only the given btc features and no power service. */
export function btcOnly(btc: (ctx: AppContext) => Made<BtcServices>): Partial<Services> {
  return { btc: (ctx) => composition(btc(ctx)), power: none };
}

/** Only the given power features and no btc service. */
export function powerOnly(power: (ctx: AppContext) => Made<PowerServices>): Partial<Services> {
  return { btc: none, power: (ctx) => composition(power(ctx)) };
}

/** A composition with a test's features after its own (a bare route to measure beside them). */
export function plus<S>(made: Composition<S>, ...features: Feature[]): Composition<S> {
  return { ...made, features: [...made.features, ...features] };
}

/** The btc service as a process runs it, with the test's options (the features it names, its rates). */
export function btc(opts: BtcOptions = {}): Partial<Services> {
  return btcOnly((ctx) => btcService(ctx, opts));
}

/** The ledger alone, converting with the given rates. */
export function ledgerOnly(rates: RatesService): Partial<Services> {
  return btc({ rates, only: ['ledger'] });
}

/** The ledger and its imports, converting with the given rates. */
export function ledgerAndImports(rates: RatesService): Partial<Services> {
  return btc({ rates, only: ['ledger', 'imports'] });
}

/** A feature that only adds routes, for tests of the app's shared hooks. */
export function routesOnly(name: string, routes: NonNullable<Feature['routes']>): Partial<Services> {
  return btcOnly(() => [{ name, routes }]);
}

/** The market feature alone, on the given rates (leading, unless the test hands over the lock). */
export function marketOnly(
  rates: RatesService,
  options: Partial<MarketOptions & StreamOptions> = {},
): Partial<Services> {
  return btc({ rates, only: ['market'], market: options });
}

/** The ledger and the portfolio over the same rates (fake ones, or the real service on a fake provider). */
export function ledgerAndPortfolio(
  rates: RatesService | ((ctx: AppContext) => RatesService),
): Partial<Services> {
  return btcOnly((ctx) =>
    btcService(ctx, {
      rates: typeof rates === 'function' ? rates(ctx) : rates,
      only: ['ledger', 'portfolio'],
    }),
  );
}
