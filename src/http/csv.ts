import { Big } from 'big.js';
import type { FastifyReply } from 'fastify';
import { stringify, type Options } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import { Type, type TSchema } from 'typebox';
import { DECIMAL_PATTERN } from './types.js';

/**
 * `?format=csv` beside JSON, for the routes that offer their rows as a spreadsheet, and
 * `csv_locale=da` for a spreadsheet set up for Denmark. Spread into a route's query schema.
 */
export const CsvQuery = {
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], {
      description: 'json (default) or csv: RFC 4180, a header of the JSON field names, dot decimals',
    }),
  ),
  csv_locale: Type.Optional(
    Type.Literal('da', {
      description:
        'with format=csv: da for Danish spreadsheets: fields separated by ";", decimal commas, a UTF-8 byte-order mark; a JSON answer is the same with it',
    }),
  ),
};

/** How a CSV answer is written: RFC 4180 (`,`, dot decimals), or for Danish spreadsheets. */
export type CsvLocale = 'da' | undefined;

/** The OpenAPI description of a CSV answer. */
export const CsvContent = {
  description: 'text/csv (RFC 4180) when format=csv',
  content: { 'text/csv': { schema: { type: 'string' } } },
} as const;

/**
 * A 200 answer of `schema` as JSON, or its rows as text/csv when `format=csv` is asked. Typed as
 * the JSON schema, so the type provider still checks what a handler returns as JSON.
 */
export function jsonOrCsv<T extends TSchema>(
  schema: T,
  description = 'JSON, or text/csv (RFC 4180) with format=csv',
): T {
  return { description, content: { 'application/json': { schema }, ...CsvContent.content } } as unknown as T;
}

/** The columns of a CSV answer, and which of them hold decimals (written with a comma in Danish). */
export interface CsvColumns {
  readonly names: readonly string[];
  readonly decimals: ReadonlySet<string>;
  /**
   * The columns of numbers (numbers, integers, decimal strings); every other column is text. A
   * text cell a spreadsheet would run as a formula is neutralised; without this, every column is text.
   */
  readonly numbers?: ReadonlySet<string>;
}

/** What starts a formula in a spreadsheet's cell (OWASP, CSV injection): = + - @, a tab, a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as a numeric column writes it, with a dot or (Danish) a comma: no formula. */
const PLAIN_NUMBER = /^-?\d+([.,]\d+)?$/;

/**
 * A text cell that a spreadsheet would run as a formula (`=HYPERLINK(…)`, `=cmd|' /C calc'!A0`,
 * `@SUM(…)`) gets a leading apostrophe, so it is shown as the text it is, as OWASP's CSV injection
 * guidance says. A number of a numeric column (`-5.2`) is left a number.
 */
export function neutralised(value: unknown, numeric: boolean): unknown {
  if (typeof value !== 'string' || !FORMULA_START.test(value)) return value;
  return numeric && PLAIN_NUMBER.test(value) ? value : `'${value}`;
}

/** Plain dot-decimal notation, never an exponent. */
function plainNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`csv: ${value} is not a finite number`);
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : new Big(value).toFixed();
}

/**
 * csv-stringify's options for RFC 4180 with `delimiter`: CRLF after every record, a field quoted
 * when it holds the delimiter, a quote or a line break (quotes doubled), null empty, and values
 * written as JSON writes them rather than its defaults (a boolean as `1` or empty, a date in ms).
 */
function options(delimiter: string): Options {
  return {
    delimiter,
    record_delimiter: '\r\n',
    quote_record_delimiter: true,
    cast: {
      number: plainNumber,
      boolean: String,
      bigint: String,
      date: (d) => JSON.stringify(d),
      object: (o) => JSON.stringify(o),
    },
  };
}
const RFC_4180 = options(',');
const DANISH = options(';');
const dialect = (delimiter: string) =>
  delimiter === ',' ? RFC_4180 : delimiter === ';' ? DANISH : options(delimiter);

/** One field: numbers in plain dot-decimal notation (never an exponent), text quoted when it must be. */
export function csvField(value: unknown, delimiter = ','): string {
  return stringify([[value]], { ...dialect(delimiter), eof: false });
}

/** The header of a CSV answer: the JSON field names of a row schema, in its order, less `drop`. */
export function csvColumns(
  row: { properties: Record<string, unknown> },
  drop: readonly string[] = [],
): CsvColumns {
  const names = Object.keys(row.properties).filter((k) => !drop.includes(k));
  const decimals: string[] = [];
  const numbers: string[] = [];
  for (const k of names) {
    const s = row.properties[k] as { type?: unknown; pattern?: unknown };
    const types = Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
    if (types.includes('number') || s.pattern === DECIMAL_PATTERN) decimals.push(k);
    if (types.includes('number') || types.includes('integer') || s.pattern === DECIMAL_PATTERN)
      numbers.push(k);
  }
  return { names, decimals: new Set(decimals), numbers: new Set(numbers) };
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export function csvLine(values: readonly unknown[], delimiter = ','): string {
  return stringify([values], dialect(delimiter));
}

/** A decimal column's value for a Danish spreadsheet: a comma before the decimals. */
function danishDecimal(value: unknown): unknown {
  if (typeof value === 'number') return plainNumber(value).replace('.', ',');
  if (typeof value === 'string' && /^-?\d+\.\d+$/.test(value)) return value.replace('.', ',');
  return value;
}

/** Rows written per chunk: one csv-stringify call each, and no more held than this. */
const CHUNK_ROWS = 256;

/** The header line and then every row, produced as the rows arrive, in chunks of lines. */
export async function* csvLines(
  columns: CsvColumns | readonly string[],
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
  locale?: CsvLocale,
): AsyncGenerator<string> {
  const {
    names,
    decimals,
    numbers = decimals,
  } = 'names' in columns ? columns : { names: columns, decimals: new Set<string>() };
  const danish = locale === 'da';
  const options = danish ? DANISH : RFC_4180;
  const value = (row: Record<string, unknown>, c: string) =>
    neutralised(danish && decimals.has(c) ? danishDecimal(row[c]) : row[c], numbers.has(c));
  // The byte-order mark makes Excel read the file as UTF-8 (æ, ø, å) rather than Windows-1252.
  yield `${danish ? '\uFEFF' : ''}${stringify([names], options)}`;
  let chunk: unknown[][] = [];
  for await (const row of rows) {
    chunk.push(names.map((c) => value(row, c)));
    if (chunk.length < CHUNK_ROWS) continue;
    yield stringify(chunk, options);
    chunk = [];
  }
  if (chunk.length > 0) yield stringify(chunk, options);
}

/**
 * Streams rows as a CSV download, in the dialect the request's `csv_locale` asks for: nothing is
 * held beyond the page being read, so a history of any length goes out in constant memory.
 */
export function sendCsv(
  reply: FastifyReply,
  filename: string,
  columns: CsvColumns,
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
): FastifyReply {
  const locale = (reply.request.query as { csv_locale?: CsvLocale } | undefined)?.csv_locale;
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .send(Readable.from(csvLines(columns, rows, locale)));
}
