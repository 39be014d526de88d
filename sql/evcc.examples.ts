import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/evcc/repository.js';

const examples: QueryExamples<typeof repository> = {
  feedInTariffs: [[new Date('2026-07-03T10:00:00Z'), new Date('2026-07-04T22:00:00Z')]],
};

export default {
  name: 'evcc',
  modules: [{ path: 'src/power/evcc/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
