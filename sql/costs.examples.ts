import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/costs/repository.js';

const start = new Date('2025-12-31T23:00:00Z');
const end = new Date('2026-12-31T23:00:00Z');
const params = { start, end, area: 'DK1', markup: '0.05', vatRate: '0.25' };

const examples: QueryExamples<typeof repository> = {
  costDays: [[params]],
  costHours: [[params]],
};

export default {
  name: 'costs',
  modules: [{ path: 'src/power/costs/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
