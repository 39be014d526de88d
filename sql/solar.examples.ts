import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/solar/repository.js';

const start = new Date('2026-07-02T22:00:00Z');

const examples: QueryExamples<typeof repository> = {
  analyzeSolar: [[]],
  insertSolar: [
    [
      [
        {
          start_at: start,
          energy_kwh: '1.234',
          power_w: '1234',
          voltage_v: '230.1',
          current_a: '5.36',
          frequency_hz: '50.01',
          temperature_c: '31.5',
          total_yield_kwh: '10234.5',
        },
      ],
    ],
  ],
  solarBetween: [[start, new Date('2026-07-03T22:00:00Z')]],
};

export default {
  name: 'solar',
  modules: [{ path: 'src/power/solar/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
