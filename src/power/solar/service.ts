import { parse } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { pipeline, type Readable } from 'node:stream';
import { stat } from 'node:fs/promises';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate, danishDayBounds, toDanishIso } from '../../shared/danish-time.js';
import { parseRow, readHeader, RowError, type ReadingName } from './csv.js';
import { analyzeSolar, insertSolar, solarBetween } from './repository.js';
import type { SolarTable } from './tables.js';

/** Rows per INSERT: large enough to be fast, small enough to keep memory flat. */
export const SOLAR_BATCH = 2000;
/** Errors collected from one file before giving up on it. */
const MAX_ERRORS = 20;

export interface ImportResult {
  file: string;
  rows: number;
  inserted: number;
}

export class SolarImportError extends Error {
  constructor(
    readonly file: string,
    readonly errors: { line: number; message: string }[],
  ) {
    super(errors.map((e) => `${file}:${e.line}: ${e.message}`).join('\n'));
  }
}

/** The most a CSV sent to the running service may hold: a year of hourly rows is about 1 MB. */
export const SOLAR_UPLOAD_MAX_BYTES = 32 * 1024 * 1024;

/** A CSV to import: a file, or a request's body; `open` is called once the transaction has begun. */
export interface CsvSource {
  name: string;
  size: number;
  open(): Readable;
}

export interface ImportProgress {
  (bytesRead: number, totalBytes: number, rows: number): void;
}

/**
 * The file's CSV records, file and parser joined by pipeline(): a read or parse error that comes
 * before the loop reads reaches the loop instead of going uncaught, and a loop that stops early
 * closes the file.
 */
function csvRecords(
  source: CsvSource,
  onBytes: (n: number) => void,
): AsyncIterable<{ record: string[]; info: { lines: number } }> {
  const input = source.open();
  input.on('data', (chunk: Buffer | string) => onBytes(chunk.length));
  const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true });
  pipeline(input, parser, () => {});
  return parser;
}

export async function fileSource(file: string): Promise<CsvSource> {
  const found = await stat(file);
  if (!found.isFile()) throw new Error(`${file} is not a file`);
  return { name: file, size: found.size, open: () => createReadStream(file) };
}

export type SolarReading = { time_dk: string } & Record<ReadingName, number>;

export interface SolarDeps {
  db: Db;
  clock: Clock;
}

/** Hourly solar panel readings: imported from CSV, read by Danish day. */
export class SolarService {
  constructor(private readonly deps: SolarDeps) {}

  /**
   * Streams one CSV file into power.solar inside one transaction: every row is validated, and a
   * single bad row rolls the whole file back. Rows must be in time order, which catches a
   * repeated hour without remembering every timestamp, so memory stays flat whatever the size.
   */
  async importSolarFile(file: string, onProgress?: ImportProgress): Promise<ImportResult> {
    return this.importSolar(await fileSource(file), onProgress);
  }

  /** importSolarFile's work on any CSV source. */
  async importSolar(source: CsvSource, onProgress?: ImportProgress): Promise<ImportResult> {
    const db = this.deps.db;
    const file = source.name;
    const total = source.size;
    let bytes = 0;
    let rows = 0;
    const errors: { line: number; message: string }[] = [];
    try {
      const result = await db.transaction().execute(async (trx) => {
        let header: Map<string, number> | null = null;
        let previous: { at: number; line: number } | null = null;
        let batch: SolarTable[] = [];
        let inserted = 0;
        let pending: Promise<number> | null = null;
        // Opened only now that the transaction has begun: a small file is read to its end at once.
        for await (const { record, info } of csvRecords(source, (n) => {
          bytes += n;
          onProgress?.(bytes, total, rows);
        })) {
          const line = info.lines;
          try {
            if (header === null) {
              header = readHeader(record, line);
              continue;
            }
            const row = parseRow(header, record, line);
            const at = row.start_at.getTime();
            if (previous && at <= previous.at)
              throw new RowError(
                line,
                `timestamp: ${toDanishIso(row.start_at)} is not after the previous row's (line ${previous.line}); rows must be in time order, one per hour`,
              );
            previous = { at, line };
            rows++;
            if (errors.length > 0) continue;
            batch.push(row);
            if (batch.length >= SOLAR_BATCH) {
              // One INSERT in flight while the next batch is parsed; never more, so memory stays flat.
              inserted += await (pending ?? 0);
              pending = insertSolar(trx, batch);
              pending.catch(() => {});
              batch = [];
            }
          } catch (e) {
            if (!(e instanceof RowError)) throw e;
            errors.push({ line: e.line, message: e.message });
            if (header === null || errors.length >= MAX_ERRORS) break;
          }
        }
        if (header === null && errors.length === 0)
          errors.push({ line: 1, message: 'the file has no header row' });
        inserted += await (pending ?? 0);
        if (errors.length > 0) throw new SolarImportError(file, errors);
        inserted += await insertSolar(trx, batch);
        onProgress?.(total, total, rows);
        return { file, rows, inserted };
      });
      if (result.inserted > 0) await analyzeSolar(db);
      return result;
    } catch (e) {
      // csv-parse reports malformed CSV (an unclosed quote) with the line it reached.
      const csv = e as { code?: string; lines?: number; message: string };
      if (typeof csv.code === 'string' && csv.code.startsWith('CSV_'))
        throw new SolarImportError(file, [...errors, { line: csv.lines ?? 0, message: csv.message }]);
      throw e;
    }
  }

  /** Stored readings of a Danish day (23, 24 or 25 hours); the date defaults to today in Denmark. */
  async solarOfDay(date?: string): Promise<SolarReading[]> {
    const { start, end } = danishDayBounds(date ?? danishDate(this.deps.clock.now()));
    return (await solarBetween(this.deps.db, start, end)).map((r) => ({
      time_dk: toDanishIso(r.start_at),
      energy_kwh: Number(r.energy_kwh),
      power_w: Number(r.power_w),
      voltage_v: Number(r.voltage_v),
      current_a: Number(r.current_a),
      frequency_hz: Number(r.frequency_hz),
      temperature_c: Number(r.temperature_c),
      total_yield_kwh: Number(r.total_yield_kwh),
    }));
  }
}
