import type { FeatureFactory } from '../context.js';

/** The power service's features, mounted in this order. */
export const powerFeatures: FeatureFactory[] = [];
