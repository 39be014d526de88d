import type { FeatureFactory } from '../context.js';
import { marketFeature } from './market/index.js';

/** The btc service's features, mounted in this order. */
export const btcFeatures: FeatureFactory[] = [marketFeature];
