import { describe, expect, it } from 'vitest';
import { batches, importCommand, STATISTICS, utcHour, withSums } from './statistics.js';

const at = (iso: string) => new Date(iso);

describe('the statistics written to Home Assistant', () => {
  it('are four external statistics of the source satwatt, named source:object_id', () => {
    expect(STATISTICS.map((s) => [s.id, s.unit, s.unitClass])).toEqual([
      ['satwatt:grid_consumption', 'kWh', 'energy'],
      ['satwatt:grid_production', 'kWh', 'energy'],
      ['satwatt:grid_consumption_cost', 'DKK', null],
      ['satwatt:grid_production_value', 'DKK', null],
    ]);
    for (const s of STATISTICS) expect(s.id.split(':')[0]).toBe('satwatt');
  });

  it('run their sums exactly from the sum before the first hour written', () => {
    const rows = withSums('0.1', [
      { start: at('2026-10-25T00:00:00Z'), state: '0.2' },
      { start: at('2026-10-25T01:00:00Z'), state: '0.1234567890123456789' },
    ]);
    expect(rows.map((r) => r.sum)).toEqual(['0.3', '0.4234567890123456789']);
    expect(withSums('0', []).length).toBe(0);
  });

  it('make an import command in the schema of recorder/import_statistics, hours as UTC top-of-hour', () => {
    const [cost] = STATISTICS.filter((s) => s.key === 'cost');
    const command = importCommand(cost!, [{ start: at('2026-10-25T01:00:00Z'), state: '1.25', sum: '10.5' }]);
    expect(command).toEqual({
      type: 'recorder/import_statistics',
      metadata: {
        has_sum: true,
        mean_type: 0,
        name: 'Grid consumption cost (satwatt)',
        source: 'satwatt',
        statistic_id: 'satwatt:grid_consumption_cost',
        unit_class: null,
        unit_of_measurement: 'DKK',
      },
      stats: [{ start: '2026-10-25T01:00:00+00:00', state: 1.25, sum: 10.5 }],
    });
    expect(utcHour(at('2026-03-29T01:00:00Z'))).toBe('2026-03-29T01:00:00+00:00');
  });

  it('cut rows into batches in order, the last one shorter', () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([], 2)).toEqual([]);
  });
});
