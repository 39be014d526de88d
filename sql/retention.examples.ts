import * as repository from '../src/btc/retention/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const examples: QueryExamples<typeof repository> = {
  vacuumTable: [['btc.candles_minute']],
  checkpoint: [[]],
};

export default {
  name: 'retention',
  modules: [{ path: 'src/btc/retention/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
