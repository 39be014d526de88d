import * as repository from '../src/btc/portfolio/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const examples: QueryExamples<typeof repository> = {
  totals: [[], ['2026-07-01']],
  walletBalances: [[]],
  walletBalancesAt: [['2026-07-01']],
};

export default {
  name: 'portfolio',
  modules: [{ path: 'src/btc/portfolio/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
