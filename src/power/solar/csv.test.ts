import { describe, expect, it } from 'vitest';
import { parseRow, readHeader, RowError, SOLAR_COLUMNS } from './csv.js';

const header = readHeader([...SOLAR_COLUMNS], 1);
const rowAt = (stamp: string) => [stamp, '1.250', '1250.0', '230.1', '5.43', '50.01', '35.5', '10001.2'];

function errorOf(stamp: string): string {
  try {
    parseRow(header, rowAt(stamp), 9);
  } catch (e) {
    expect(e).toBeInstanceOf(RowError);
    expect((e as RowError).line).toBe(9);
    return (e as RowError).message;
  }
  throw new Error(`${stamp} was accepted`);
}

describe('a solar CSV row', () => {
  it.each([
    ['2025-10-26T02:00:00+02:00', '2025-10-26T00:00:00.000Z'],
    ['2025-10-26T02:00:00+01:00', '2025-10-26T01:00:00.000Z'],
    ['2025-06-01 13:00+0200', '2025-06-01T11:00:00.000Z'],
    ['2025-06-01T11:00:00Z', '2025-06-01T11:00:00.000Z'],
    ['2025-06-01T13:00:00+05:30', '2025-06-01T07:30:00.000Z'],
  ])('reads %s as the instant %s', (stamp, iso) => {
    const row = parseRow(header, rowAt(stamp), 2);
    expect(row.start_at.toISOString()).toBe(iso);
    expect(row).toMatchObject({ energy_kwh: '1.250', total_yield_kwh: '10001.2' });
  });

  it.each(['2025-02-30T10:00:00+01:00', '2025-06-01T24:00:00Z', '2025-06-01T10:00:00', '1 June 2025 10:00'])(
    'refuses %s as a timestamp',
    (stamp) => expect(errorOf(stamp)).toMatch(/^timestamp: .* is not an ISO 8601 instant with an offset/),
  );

  it('refuses a time that does not start an hour', () => {
    expect(errorOf('2025-06-01T10:00:30Z')).toBe('timestamp: "2025-06-01T10:00:30Z" does not start an hour');
  });

  it.each(['0000-06-01T10:00:00Z', '1999-12-31T23:00:00Z', '9999-06-01T10:00:00+02:00'])(
    'dates: refuses %s, outside the days solar readings can carry',
    (stamp) => expect(errorOf(stamp)).toMatch(/^timestamp: .* is not from 2000-01-01 to 2099-12-31$/),
  );

  it('accepts 0 Hz from a sleeping inverter but not 30 Hz', () => {
    const r = rowAt('2025-06-01T01:00:00Z');
    r[5] = '0';
    expect(parseRow(header, r, 2).frequency_hz).toBe('0');
    r[5] = '30';
    expect(() => parseRow(header, r, 2)).toThrow('frequency_hz: 30 is outside 45 to 65');
  });

  it('reads the header in any order, ignoring case', () => {
    const shuffled = readHeader(['Energy_kWh', ...SOLAR_COLUMNS.filter((c) => c !== 'energy_kwh')], 1);
    expect(shuffled.get('energy_kwh')).toBe(0);
    expect(shuffled.get('timestamp')).toBe(1);
  });
});
