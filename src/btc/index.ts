import type { FeatureFactory } from '../context.js';
import { candlesFeature } from './candles/index.js';
import { ratesFeature } from './rates/index.js';
import { ledgerFeature } from './ledger/index.js';
import { marketFeature } from './market/index.js';

/** The btc service's features, mounted in this order; rates first, the others call ratesOf(ctx). */
export const btcFeatures: FeatureFactory[] = [ratesFeature, candlesFeature, ledgerFeature, marketFeature];
