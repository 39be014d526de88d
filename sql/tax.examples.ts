import * as repository from '../src/btc/tax/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const examples: QueryExamples<typeof repository> = {
  owners: [[]],
  taxEvents: [
    ['2025-12-31', null],
    ['2025-12-31', { day: '2025-12-31', btc_dkk: '600000' }],
  ],
  daysNeedingPrice: [['2025-12-31']],
  dailyVwaps: [[['2025-03-10', '2025-04-01']]],
  savePrices: [
    [[{ date: '2025-03-10', btc_eur: '45600', eur_dkk: '7.5', rates_date: '2025-03-10', btc_dkk: '342000' }]],
  ],
};

export default {
  name: 'tax',
  modules: [{ path: 'src/btc/tax/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
