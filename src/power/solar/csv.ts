import { DAYS, isDayIn } from '../../shared/days.js';
import type { SolarTable } from './tables.js';

/** A reading column of the CSV: the decimals it may have and the range it must lie in. */
interface ReadingSpec {
  decimals: number;
  min: number;
  max: number;
  /** A value outside the range that is still valid (a sleeping inverter reports 0 Hz). */
  alsoAllowed?: number;
}

export const READINGS = {
  energy_kwh: { decimals: 3, min: 0, max: 1000 },
  power_w: { decimals: 1, min: 0, max: 1_000_000 },
  voltage_v: { decimals: 1, min: 0, max: 1000 },
  current_a: { decimals: 2, min: 0, max: 1000 },
  frequency_hz: { decimals: 2, min: 45, max: 65, alsoAllowed: 0 },
  temperature_c: { decimals: 1, min: -50, max: 120 },
  total_yield_kwh: { decimals: 1, min: 0, max: 10_000_000_000 },
} as const satisfies Record<string, ReadingSpec>;

export type ReadingName = keyof typeof READINGS;
const READING_NAMES = Object.keys(READINGS) as ReadingName[];
export const SOLAR_COLUMNS = ['timestamp', ...READING_NAMES] as const;

/** A row that cannot be imported, with the line of the file it is on. */
export class RowError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Maps each column name to its index; the header must name each column exactly once. */
export function readHeader(record: string[], line: number): Map<string, number> {
  const index = new Map<string, number>();
  record.forEach((name, i) => {
    const key = name.trim().toLowerCase();
    if (!(SOLAR_COLUMNS as readonly string[]).includes(key))
      throw new RowError(line, `unknown column "${name}" (expected ${SOLAR_COLUMNS.join(', ')})`);
    if (index.has(key)) throw new RowError(line, `column "${key}" appears twice`);
    index.set(key, i);
  });
  const missing = SOLAR_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0)
    throw new RowError(line, `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return index;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO 8601 instant with its offset, on the hour of its own local time. */
function parseInstant(stamp: string, line: number): Date {
  const m = INSTANT.exec(stamp);
  const [, date = '', hh = '', mm = '', ss = '00', zone = ''] = m ?? [];
  const offset = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const at = new Date(`${date}T${hh}:${mm}:${ss}${offset}`);
  // Date accepts 2025-02-30 and rolls it over; a real calendar date reads back the same.
  const real = m !== null && Number(hh) < 24 && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
  if (!real || Number.isNaN(at.getTime()))
    throw new RowError(
      line,
      `timestamp: "${stamp}" is not an ISO 8601 instant with an offset (2025-06-01T13:00:00+02:00)`,
    );
  if (mm !== '00' || ss !== '00') throw new RowError(line, `timestamp: "${stamp}" does not start an hour`);
  if (!isDayIn(DAYS.solar, date))
    throw new RowError(line, `timestamp: "${stamp}" is not from ${DAYS.solar.min} to ${DAYS.solar.max}`);
  return at;
}

export function parseRow(header: Map<string, number>, record: string[], line: number): SolarTable {
  if (record.length !== header.size)
    throw new RowError(line, `expected ${header.size} fields, found ${record.length}`);
  const field = (name: string) => record[header.get(name)!]!.trim();
  const at = parseInstant(field('timestamp'), line);
  const row: Record<string, string | Date> = { start_at: at };
  for (const name of READING_NAMES) row[name] = reading(name, field(name), line);
  return row as unknown as SolarTable;
}

const PATTERNS = Object.fromEntries(
  READING_NAMES.map((name) => [name, new RegExp(`^-?\\d{1,12}(\\.\\d{1,${READINGS[name].decimals}})?$`)]),
) as Record<ReadingName, RegExp>;

function reading(name: ReadingName, text: string, line: number): string {
  const spec: ReadingSpec = READINGS[name];
  if (text === '') throw new RowError(line, `${name}: is empty`);
  if (!PATTERNS[name].test(text))
    throw new RowError(line, `${name}: "${text}" is not a number with at most ${spec.decimals} decimals`);
  const value = Number(text);
  if ((value < spec.min || value > spec.max) && value !== spec.alsoAllowed)
    throw new RowError(line, `${name}: ${text} is outside ${spec.min} to ${spec.max}`);
  return text;
}
