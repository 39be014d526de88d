import * as repository from '../src/btc/retention/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const cutoff = new Date('2026-07-13T12:00:00Z');

const examples: QueryExamples<typeof repository> = {
  foldQuotes: [[cutoff, 1]],
  pruneMinuteCandles: [[new Date('2026-06-20T12:34:00Z'), 1000]],
  pruneIdempotencyKeys: [[new Date('2026-07-19T12:34:00Z'), 1000]],
  vacuumTable: [['btc.candles_minute']],
  checkpoint: [[]],
};

export default {
  name: 'retention',
  modules: [{ path: 'src/btc/retention/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
