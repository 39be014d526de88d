import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadFeatures, renderFeature, sqlFile } from '../scripts/sql-snapshot.js';

const features = await loadFeatures();

describe('the checked-in SQL of every repository query', () => {
  it('covers every feature with queries', () => {
    expect(features.map((f) => f.name).sort()).toEqual(
      [
        'bill',
        'candles',
        'chain',
        'co2',
        'costs',
        'ha-statistics',
        'imports',
        'household',
        'ledger',
        'market',
        'metering',
        'portfolio',
        'prices',
        'rates',
        'retention',
        'solar',
        'tax',
        'window-settings',
      ].sort(),
    );
  });

  it.each(features.map((f) => [f.name, f] as const))(
    'sql/%s.sql is what the queries compile to (npm run sql rewrites it)',
    async (_name, feature) => {
      const expected = await renderFeature(feature);
      const checkedIn = await readFile(sqlFile(feature), 'utf8').catch(() => '(missing)');
      expect(checkedIn, `sql/${feature.name}.sql is stale: run npm run sql and review the diff`).toBe(
        expected,
      );
    },
  );
});
