import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/mqtt/windows/repository.js';

const examples: QueryExamples<typeof repository> = {
  windowSettings: [[]],
  saveWindowSetting: [[{ kind: 'cheapest', minutes: 180, end_hour: 7 }, new Date('2026-07-03T10:07:30Z')]],
};

export default {
  name: 'window-settings',
  modules: [{ path: 'src/mqtt/windows/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
