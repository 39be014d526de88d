import type { FeatureFactory } from '../context.js';
import { pricesFeature } from './prices/index.js';
import { meteringFeature } from './metering/index.js';
import { solarFeature } from './solar/index.js';

/** The power service's features, mounted in this order. */
export const powerFeatures: FeatureFactory[] = [pricesFeature, meteringFeature(), solarFeature];
