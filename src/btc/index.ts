import type { FeatureFactory } from '../context.js';

/** The btc service's features, mounted in this order. */
export const btcFeatures: FeatureFactory[] = [];
