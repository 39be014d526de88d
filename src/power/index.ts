import type { FeatureFactory } from '../context.js';
import { pricesFeature } from './prices/index.js';

/** The power service's features, mounted in this order. */
export const powerFeatures: FeatureFactory[] = [pricesFeature];
