import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/ha-statistics/repository.js';

const pricing = { area: 'DK1', markup: '0.05', vatRate: '0.25' };

const examples: QueryExamples<typeof repository> = {
  analyzeStatistics: [[]],
  pendingHours: [[pricing]],
  unpricedDays: [[pricing, new Date('2026-10-24T22:00:00Z')]],
  recordWritten: [
    [
      'satwatt:grid_consumption',
      [
        { start: new Date('2026-10-25T00:00:00Z'), state: '1.1', sum: '3140.512' },
        { start: new Date('2026-10-25T01:00:00Z'), state: '0.6', sum: '3141.112' },
      ],
    ],
  ],
  writtenSummary: [[]],
};

export default {
  name: 'ha-statistics',
  modules: [{ path: 'src/power/ha-statistics/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
