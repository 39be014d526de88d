import { Big } from 'big.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { badRequest } from './problem.js';
import { Readable } from 'node:stream';
import { Type, type TSchema } from 'typebox';

/** `?format=csv` beside JSON, for the routes that offer their rows as a spreadsheet. */
export const Format = Type.Optional(
  Type.Union([Type.Literal('json'), Type.Literal('csv')], {
    description: 'json (default) or csv: RFC 4180, a header of the JSON field names, dot decimals',
  }),
);

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

/** One field: numbers in plain dot-decimal notation (never an exponent), text quoted when it must be. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`csv: ${value} is not a finite number`);
    text = Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : new Big(value).toFixed();
  } else if (typeof value === 'string') text = value;
  else if (typeof value === 'boolean') text = String(value);
  else text = JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header of a CSV answer: the JSON field names of a row schema, in its order, less `drop`. */
export function csvColumns(
  row: { properties: Record<string, unknown> },
  drop: readonly string[] = [],
): string[] {
  return Object.keys(row.properties).filter((k) => !drop.includes(k));
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** The header line and then every row, produced as the rows arrive. */
export async function* csvLines(
  columns: readonly string[],
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
): AsyncGenerator<string> {
  yield csvLine(columns);
  for await (const row of rows) yield csvLine(columns.map((c) => row[c]));
}

/**
 * Streams rows as a CSV download: nothing is held beyond the page being read, so a history of
 * any length goes out in constant memory.
 */
export function sendCsv(
  reply: FastifyReply,
  filename: string,
  columns: readonly string[],
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .send(Readable.from(csvLines(columns, rows)));
}

/**
 * A route without a query schema would take `?format=csv` and answer JSON all the same; every
 * route with one refuses an unknown parameter. So `format` there is a 400 naming it.
 */
export function refuseFormatWithoutQuerySchema(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.schema?.querystring) return;
    const query = request.query as Record<string, unknown> | undefined;
    if (query && Object.hasOwn(query, 'format'))
      throw badRequest('querystring.format: this route answers JSON only and takes no format');
  });
}
