import type { FeatureFactory } from '../context.js';
import { ledgerFeature } from './ledger/index.js';

/** The btc service's features, mounted in this order. */
export const btcFeatures: FeatureFactory[] = [ledgerFeature];
