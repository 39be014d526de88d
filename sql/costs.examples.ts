import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/costs/repository.js';

const start = new Date('2025-12-31T23:00:00Z');
const end = new Date('2026-12-31T23:00:00Z');
const params = { start, end, area: 'DK1', markup: '0.05', vatRate: '0.25' };

const examples: QueryExamples<typeof repository> = {
  consumerHours: [[new Date('2026-07-02T22:00:00Z'), new Date('2026-07-03T22:00:00Z'), 'DK1']],
  consumerQuarters: [[new Date('2026-07-02T22:00:00Z'), new Date('2026-07-03T22:00:00Z'), 'DK1']],
  costDays: [[params]],
  costHours: [[params]],
  lastMeteredDay: [[new Date('2026-06-02T22:00:00Z'), new Date('2026-07-02T22:00:00Z')]],
};

export default {
  name: 'costs',
  modules: [{ path: 'src/power/costs/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
