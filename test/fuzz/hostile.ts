import type { JsonSchema } from './arbitraries.js';

/**
 * Hostile values by class, written down rather than drawn at random: each class is small, and
 * every member is sent to every parameter of its kind, so a defect of a class cannot hide
 * behind an unlucky seed.
 */

/** Text that JavaScript's Number() reads as a number, but no parameter should take as one. */
export const NUMBER_TEXT = {
  'non-finite': ['Infinity', '-Infinity', '+Infinity', 'NaN', '1e400', '-1e400', '1'.padEnd(400, '0')],
  overflowing: ['9007199254740993', '99999999999999999999', '1e21', '-9007199254740993', '2147483648'],
  fractional: ['1.5', '0.5', '-0.5', '10.0', '1e-7', '.5', '5.'],
  'odd forms': ['1e2', '0x10', '0b11', '0o7', ' 7', '7 ', '+7', '1_000', '١٢'],
} as const;

/** Negative zero is zero: a parameter may take it or refuse it, but never fail on it. */
export const NEGATIVE_ZERO = ['-0', '-0.0', '-00'];

/**
 * The same classes inside a JSON body, as raw JSON text: JSON.parse reads 1e400 as Infinity,
 * so JSON.stringify cannot write these.
 */
export const NUMBER_JSON = {
  'non-finite': ['1e400', '-1e400'],
  overflowing: ['9007199254740993', '1e21', '-9007199254740993', '2147483648'],
  fractional: ['1.5', '0.5', '1e-7'],
} as const;

/**
 * Money in a JSON body, as raw JSON text, by class: every one must be refused by a field that
 * keeps money exactly (the `Amount` type, `x-exact-decimal`). The float-altered ones are JSON
 * numbers whose digits JSON.parse cannot keep: a field that took them would store other digits.
 */
export const MONEY_JSON = {
  'float-altered': [
    '0.30000000000000004',
    '123456789.123456789',
    '9007199254740993',
    '1234567890.1234567',
    '0.1234567890123456789',
    '100000000000000.01',
  ],
  'too many decimals': ['1.123456789', '"1.123456789"', '1e-9', '"0.000000001"'],
  'not positive': ['0', '-1', '-0', '"0"', '"0.00"', '"-1"', '-0.5'],
  'not a decimal': ['"1e3"', '"0x10"', '"Infinity"', '"NaN"', '" 5"', '"5."', '".5"', '""', '"5,5"', '1e400'],
  'other JSON types': ['true', 'false', 'null', '[5]', '["5"]', '{"v":5}'],
} as const;

/** Money a float keeps exactly, as raw JSON text: may be taken (or refused for another reason), never a 5xx. */
export const EXACT_MONEY_JSON = [
  '5',
  '"5"',
  '0.1',
  '1e-7',
  '"0.00000001"',
  '123456789012.345',
  '"123456789012345.12345678"',
];

export function isMoney(schema: JsonSchema): boolean {
  return schema['x-exact-decimal'] !== undefined;
}

/** Integer-typed schemas refuse fractions; number-typed ones may take them. */
export function mustRefuseNumber(schema: JsonSchema, cls: string, value: string): boolean {
  if (cls !== 'fractional') return cls !== 'overflowing' || outOfRange(schema, Number(value));
  return typeOf(schema) === 'integer' || outOfRange(schema, Number(value));
}

/** Outside the schema's bounds, or, for an integer, outside the integers a double holds exactly. */
function outOfRange(schema: JsonSchema, n: number): boolean {
  const { min, max } = bounds(schema);
  const exact = typeOf(schema) === 'integer' ? Number.isSafeInteger(n) : Number.isFinite(n);
  return !exact || n < min || n > max;
}

/** The schema's bounds; where it names none, the safe integers for an integer, any finite number else. */
export function bounds(schema: JsonSchema): { min: number; max: number } {
  const branch = numericBranch(schema) ?? schema;
  const limit = branch.type === 'integer' ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE;
  const min =
    branch.minimum ?? (branch.exclusiveMinimum !== undefined ? branch.exclusiveMinimum + 1e-9 : -limit);
  const max =
    branch.maximum ?? (branch.exclusiveMaximum !== undefined ? branch.exclusiveMaximum - 1e-9 : limit);
  return { min: Math.max(min, -limit), max: Math.min(max, limit) };
}

function numericBranch(schema: JsonSchema): JsonSchema | undefined {
  return [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find(
    (s) => s.type === 'integer' || s.type === 'number',
  );
}

export function typeOf(schema: JsonSchema): 'integer' | 'number' | null {
  const t = numericBranch(schema)?.type;
  return t === 'integer' || t === 'number' ? t : null;
}

export function isDate(schema: JsonSchema): boolean {
  return schema.format === 'date';
}

/** Days no date parameter may take: year 0000, 9999, and days no calendar has. */
export const HOSTILE_DAYS = {
  'year 0000': ['0000-01-01', '0000-02-29', '0000-12-31'],
  'year 9999': ['9999-12-31', '9999-01-01'],
  'impossible days': [
    '2025-02-29',
    '2023-02-29',
    '2025-04-31',
    '2025-02-30',
    '2025-13-01',
    '2025-00-10',
    '2025-01-00',
    '2025-01-32',
  ],
  'odd forms': [
    '+002025-01-01',
    '2025-1-1',
    '20250101',
    '2025-01-01T00:00:00Z',
    ' 2025-01-01',
    '2025-01-01 ',
    '١٢٣٤-01-01',
  ],
} as const;

export function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
export function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** Cursors made from a real one: its text damaged, and its content replaced when it is JSON. */
export function tamperedCursors(real: string): { mustRefuse: string[]; mayPass: string[] } {
  const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const encodeRaw = (text: string) => Buffer.from(text).toString('base64url');
  const mustRefuse = [
    '!!!!',
    'not base64 at all',
    '%00',
    '😀',
    'x'.repeat(10_000),
    encodeRaw('not json'),
    encodeRaw('{"unterminated": '),
    encode(null),
    encode({}),
    encode([]),
    encode('2025-01-01'),
    encode(42),
  ];
  const mayPass = [real.slice(0, -1), real.slice(1), `${real}A`, flip(real, 0), flip(real, real.length >> 1)];
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(real, 'base64url').toString('utf8'));
  } catch {
    return { mustRefuse, mayPass };
  }
  const days = Object.values(HOSTILE_DAYS).flat();
  const numbers = ['1e400', '-1e400', '1.5', '-1', '0', '9007199254740993', '1e21', '"1"', 'null', 'true'];
  const text = JSON.stringify(decoded);
  for (const day of days)
    mustRefuse.push(encodeRaw(text.replace(/"\d{4}-\d{2}-\d{2}"/, JSON.stringify(day))));
  for (const n of numbers) mustRefuse.push(encodeRaw(text.replace(/(?<![\w."-])\d+(?![\w."-])/, n)));
  if (Array.isArray(decoded)) {
    mustRefuse.push(encode([...decoded, 1]), encode(decoded.slice(0, -1)), encode([...decoded].reverse()));
  } else if (decoded !== null && typeof decoded === 'object') {
    mustRefuse.push(encode({ ...decoded, extra: 1 }), encode(Object.values(decoded)));
  }
  return { mustRefuse: mustRefuse.filter((c) => c !== real), mayPass };
}

function flip(text: string, i: number): string {
  const c = text[i] ?? 'A';
  return text.slice(0, i) + (c === 'A' ? 'B' : 'A') + text.slice(i + 1);
}
