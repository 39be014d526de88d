import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/prices/repository.js';

const start = new Date('2026-07-02T22:00:00Z');
const end = new Date('2026-07-03T22:00:00Z');

const examples: QueryExamples<typeof repository> = {
  insertPrices: [[[{ timeUtc: start, area: 'DK1', minutes: 15, priceDkk: '612.35', priceEur: '82.07' }]]],
  deriveElprices: [[start, end]],
  applyHouseholdTariffs: [[]],
  elpricesBetween: [[start, end]],
  pricesBetween: [
    [start, end, undefined],
    [start, end, 'DK2'],
  ],
  consumerHours: [[start, end, 'DK1']],
  consumerQuarters: [[start, end, 'DK1']],
};

export default {
  name: 'prices',
  modules: [{ path: 'src/power/prices/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
