import { Type, type Static, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';
import { type DayRange } from '../shared/days.js';

export { DAYS, isDayIn, type DayRange } from '../shared/days.js';

/**
 * A real calendar day (2025-02-30 is not one) inside `range`, checked by the validator: the
 * `date` format checks the calendar, `formatMinimum`/`formatMaximum` the range.
 */
export function Day(range: DayRange, description = 'a day') {
  return Type.String({
    format: 'date',
    formatMinimum: range.min,
    formatMaximum: range.max,
    description: `${description}; YYYY-MM-DD from ${range.min} to ${range.max}`,
  });
}

/**
 * Free text (a note, a label): refused with a 400 naming the field when it holds NUL or an
 * unpaired surrogate, which PostgreSQL cannot store or would store as another text.
 */
export function Text(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, 'x-text': 'text' });
}

/**
 * A name that must be unique and told apart by eye: Text without control or invisible characters
 * (zero-width spaces and joiners, bidirectional overrides), stored and compared in Unicode NFC.
 */
export function Name(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({
    ...options,
    'x-text': 'name',
    description: `${options.description ?? 'a name'}; Unicode NFC, without control or invisible characters`,
  });
}

/**
 * One of `values`, in any letter case (`dk1` is `DK1`): the validator replaces a match by the
 * value as listed before the choice is checked (the `x-any-case` keyword, src/http/validation.ts).
 */
export function AnyCase<const T extends readonly string[]>(values: T, description: string) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { 'x-any-case': true, description: `${description}; any letter case` },
  ) as unknown as TUnsafe<T[number]>;
}

/** An opaque page cursor: base64url text, at most 200 characters; its content is checked where it is read. */
export const Cursor = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'next_cursor of the previous page, passed back unchanged',
});

/** The most decimals a fiat amount carries (a satoshi's worth of a bitcoin amount is 8 too). */
export const AMOUNT_DECIMALS = 8;

/**
 * A positive decimal amount with at most 8 decimals, given as a JSON string (kept digit for
 * digit) or as a JSON number that carries every digit exactly: its shortest text has at most 8
 * decimals and at most 15 significant digits, which every double keeps, so no float altered it.
 * The `x-exact-decimal` keyword of the validator checks what a pattern cannot (src/http/validation.ts).
 */
export function Amount(description = 'a positive decimal amount') {
  return Type.Unsafe<string | number>({
    anyOf: [
      { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,8})?$', maxLength: 24 },
      { type: 'number', exclusiveMinimum: 0, maximum: 999_999_999_999_999 },
    ],
    'x-exact-decimal': AMOUNT_DECIMALS,
    description: `${description}; > 0 with at most ${AMOUNT_DECIMALS} decimals, as a string (kept digit for digit) or a number of at most 15 significant digits`,
  });
}

/** The pattern of `Decimal`, by which a CSV export knows a decimal column (src/http/csv.ts). */
export const DECIMAL_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$';

/** A fiat amount as answered: a decimal string, exact (SQL numeric), never a float. */
export function Decimal(description = 'a fiat amount') {
  return Type.String({
    pattern: DECIMAL_PATTERN,
    description: `${description}; a decimal string, exact`,
  });
}

/** Whether `value` is an amount `Amount` describes (positive, exact, at most `decimals` decimals). */
export function isExactDecimal(value: unknown, decimals: number): boolean {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) {
    text = String(value);
    const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
    if (!m) return false;
    const digits = `${m[1]}${m[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
    const places = (m[2]?.length ?? 0) - Number(m[3] ?? 0);
    return value > 0 && digits.length <= 15 && places <= decimals;
  } else return false;
  const m = /^(0|[1-9]\d*)(?:\.(\d+))?$/.exec(text);
  return m !== null && (m[2]?.length ?? 0) <= decimals && /[1-9]/.test(text);
}

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * A value or null. A primitive is written `type: [T, "null"]` (JSON Schema, OpenAPI 3.1), which
 * fast-json-stringify serializes directly; for an `anyOf` it runs Ajv on each value to pick the
 * branch, and compiles those validators on a route's first answer (40 ms of the first /health).
 * Objects stay an `anyOf`.
 */
export function Nullable<T extends TSchema>(t: T, options: TSchemaOptions = {}): TUnsafe<Static<T> | null> {
  const schema = { ...t } as Record<string, unknown>;
  if (typeof schema.type === 'string' && PRIMITIVES.has(schema.type))
    return Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [schema.type, 'null'] });
  return Type.Unsafe<Static<T> | null>(Type.Union([t, Type.Null()], options));
}
