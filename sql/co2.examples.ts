import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/co2/repository.js';

const start = new Date('2026-07-02T22:00:00Z');
const end = new Date('2026-07-03T22:00:00Z');
const rows = [
  { timeUtc: new Date('2026-07-03T10:00:00Z'), area: 'DK1' as const, gKwh: '81' },
  { timeUtc: new Date('2026-07-03T10:05:00Z'), area: 'DK1' as const, gKwh: '83' },
];

const examples: QueryExamples<typeof repository> = {
  insertForecast: [[new Date('2026-07-03T10:02:00Z'), rows]],
  upsertRealized: [[new Date('2026-07-03T10:17:00Z'), rows]],
  realizedThrough: [[]],
  forecastThrough: [[]],
  countRealized: [['DK1', start, end]],
  intervals: [
    ['DK1', start, end, 15],
    ['DK2', start, end, 60],
  ],
};

export default {
  name: 'co2',
  modules: [{ path: 'src/power/co2/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
