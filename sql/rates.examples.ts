import * as repository from '../src/btc/rates/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const examples: QueryExamples<typeof repository> = {
  findByDate: [['2026-07-03']],
  findByDates: [[['2026-07-03', '2026-07-04']]],
  findLatest: [[]],
  upsert: [
    [{ date: '2026-07-04', rates_date: '2026-07-03', usd_eur: '0.85', usd_dkk: '6.34', eur_dkk: '7.46' }],
  ],
  upsertMany: [
    [
      [
        { date: '2026-07-04', rates_date: '2026-07-03', usd_eur: '0.85', usd_dkk: '6.34', eur_dkk: '7.46' },
        { date: '2026-07-05', rates_date: '2026-07-03', usd_eur: '0.85', usd_dkk: '6.34', eur_dkk: '7.46' },
      ],
    ],
  ],
};

export default {
  name: 'rates',
  modules: [{ path: 'src/btc/rates/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
