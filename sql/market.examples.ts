import * as repository from '../src/btc/market/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const at = new Date('2026-07-03T10:00:00Z');

const examples: QueryExamples<typeof repository> = {
  insertPrice: [
    [
      {
        at,
        btc_usd: '62000.5',
        btc_eur: '57000.1',
        btc_dkk: '425000.75',
        rates: { date: '2026-07-03', usd_eur: '0.92', usd_dkk: '6.86', eur_dkk: '7.46' },
      },
    ],
  ],
  latestPrice: [[]],
  prunePrices: [[at]],
  insertQuote: [
    [
      {
        at,
        total_eur: '55',
        fee_eur: '0.55',
        pre_fee_eur: '54.45',
        quote_sats: 95_321,
        rates: [{ amount: '57100', sourceCurrency: 'BTC', targetCurrency: 'EUR' }],
        spot_eur: '57000.1',
        spread_pct: '0.219818',
        all_in_pct: '1.231929',
      },
    ],
  ],
  spotAt: [[at, 60_000]],
  latestQuote: [[]],
  premiumBuckets: [[at, new Date('2026-07-04T10:00:00Z'), 'hour']],
  feeOf: [['2026-07-03', '55']],
  saveFee: [[{ date: '2026-07-03', total_eur: '55', fee_eur: '0.55', learned_at: at }]],
  notify: [['btc_price', '42']],
  foldQuotes: [[new Date('2026-07-13T12:00:00Z'), 1]],
};

export default {
  name: 'market',
  modules: [{ path: 'src/btc/market/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
