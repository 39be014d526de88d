import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/bill/repository.js';

const params = {
  start: new Date('2025-09-30T22:00:00Z'),
  end: new Date('2025-10-31T23:00:00Z'),
  area: 'DK1',
  markup: '0.05',
  vatRate: '0.25',
};

const examples: QueryExamples<typeof repository> = {
  billTotals: [[params]],
};

export default {
  name: 'bill',
  modules: [{ path: 'src/power/bill/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
