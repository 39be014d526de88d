import type { AppContext, Feature } from '../context.js';
import { createMeteringFeature } from './metering/index.js';
import { createPricesFeature } from './prices/index.js';
import { createSolarFeature } from './solar/index.js';

/** The power service: prices and the home page, metering, solar. */
export function powerService(ctx: AppContext): Feature[] {
  return [createPricesFeature(ctx), createMeteringFeature(ctx), createSolarFeature(ctx)];
}
