import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import type { DecimalMark } from './decimal.js';

/** Something wrong with one line of a file, in words for the person who made it. */
export interface LineProblem {
  line: number;
  reason: string;
}

/** One CSV record and the line of the file it ends on. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A file as records: its header's columns by name, and how it writes decimals. */
export interface CsvFile {
  columns: Map<string, number>;
  headerLine: number;
  mark: DecimalMark;
  records: CsvRecord[];
}

/** Parsed a slice at a time, so a large body never holds the event loop for long. */
const SLICE = 64 * 1024;

/**
 * A comma file writes decimals with a dot; a semicolon file, as Danish spreadsheets save CSV,
 * with a comma. Told apart by the header line, which holds no numbers.
 */
export function dialectOf(text: string): { delimiter: ',' | ';'; mark: DecimalMark } {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => first.split(c).length - 1;
  return count(';') > count(',') ? { delimiter: ';', mark: ',' } : { delimiter: ',', mark: '.' };
}

/**
 * The records of a CSV text with the lines they end on, its first record as the header (names
 * trimmed and lower-cased). Malformed CSV (an unclosed quote) is a problem on the line the
 * parser reached; so is a header that repeats a name. `onBytes` hears how far parsing got.
 */
export async function readCsv(
  text: string,
  onBytes?: (parsed: number) => void,
): Promise<{ ok: true; file: CsvFile } | { ok: false; problem: LineProblem }> {
  const { delimiter, mark } = dialectOf(text.replace(/^\uFEFF/, ''));
  const parser = parse({
    bom: true,
    delimiter,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
  });
  const input = Readable.from(slices(text), { objectMode: false });
  input.pipe(parser);
  input.on('error', (e) => parser.destroy(e));
  let columns: Map<string, number> | null = null;
  let headerLine = 1;
  const records: CsvRecord[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; bytes: number };
    }>) {
      onBytes?.(info.bytes);
      if (columns === null) {
        headerLine = info.lines;
        columns = new Map();
        for (const [i, raw] of record.entries()) {
          const name = raw.trim().toLowerCase();
          if (name === '') continue;
          if (columns.has(name))
            return {
              ok: false,
              problem: { line: info.lines, reason: `column "${name}" appears twice in the header` },
            };
          columns.set(name, i);
        }
        continue;
      }
      records.push({ line: info.lines, fields: record });
    }
  } catch (e) {
    const csv = e as { code?: string; lines?: number; message?: string };
    if (typeof csv.code === 'string' && csv.code.startsWith('CSV_'))
      return { ok: false, problem: { line: csv.lines ?? 1, reason: `not readable as CSV: ${csv.message}` } };
    throw e;
  }
  if (columns === null) return { ok: false, problem: { line: 1, reason: 'the file has no header row' } };
  return { ok: true, file: { columns, headerLine, mark, records } };
}

function* slices(text: string): Generator<string> {
  for (let i = 0; i < text.length; i += SLICE) yield text.slice(i, i + SLICE);
}

/** The header's missing columns among `required`, as a problem on the header line. */
export function missingColumns(file: CsvFile, required: readonly string[]): LineProblem | null {
  const missing = required.filter((c) => !file.columns.has(c));
  if (missing.length === 0) return null;
  return {
    line: file.headerLine,
    reason: `the header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (it has ${[...file.columns.keys()].join(', ') || 'none'})`,
  };
}

/**
 * A record's fields by column name, trimmed; or the problem of a record whose field count is
 * not the header's, or that holds a NUL character (no text column can store one).
 */
export function fieldsOf(file: CsvFile, r: CsvRecord): { get: (name: string) => string } | LineProblem {
  const width = Math.max(...file.columns.values()) + 1;
  if (r.fields.length < width)
    return { line: r.line, reason: `expected ${width} fields as the header has, found ${r.fields.length}` };
  if (r.fields.some((f) => f.includes('\u0000'))) return { line: r.line, reason: 'holds a NUL character' };
  return {
    get: (name) => {
      const i = file.columns.get(name);
      return i === undefined ? '' : (r.fields[i] ?? '').trim();
    },
  };
}
