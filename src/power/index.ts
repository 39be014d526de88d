import type { AppContext, Feature } from '../context.js';
import { createCostsFeature } from './costs/index.js';
import { createMeteringFeature } from './metering/index.js';
import { createPriceService, createPricesFeature } from './prices/index.js';
import { createSolarFeature } from './solar/index.js';

/** The power service: prices and the home page, metering, solar, and what electricity costs. */
export function powerService(ctx: AppContext): Feature[] {
  // One price service: the costs read the hours it stores and fetches, and share its caches' version.
  const prices = createPriceService(ctx);
  return [
    createPricesFeature(ctx, { prices }),
    createMeteringFeature(ctx),
    createSolarFeature(ctx),
    createCostsFeature(ctx, { prices }),
  ];
}
