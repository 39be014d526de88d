import fc from 'fast-check';

/** The subset of JSON Schema that TypeBox emits for this project's routes. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  formatMinimum?: string;
  formatMaximum?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  $ref?: string;
  'x-exact-decimal'?: number;
}

/** Mostly recent days, where the data is; now and then the first and the last day the schema takes. */
function isoDate(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.formatMinimum ?? '2016-01-01';
  const max = schema.formatMaximum ?? '2027-12-31';
  const from = min > '2016-01-01' ? min : '2016-01-01';
  const to = max < '2027-12-31' ? max : '2027-12-31';
  const recent = fc
    .date({ min: new Date(`${from}T00:00:00Z`), max: new Date(`${to}T00:00:00Z`), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));
  return fc.oneof({ arbitrary: recent, weight: 8 }, { arbitrary: fc.constantFrom(min, max), weight: 1 });
}

/** A positive decimal of at most `places` decimals, as text: what an amount field takes. */
function exactDecimal(places: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: 1, max: 99_999_999 }), fc.integer({ min: 0, max: places }))
    .map(([units, p]) => {
      if (p === 0) return String(units);
      const digits = String(units).padStart(p + 1, '0');
      return `${digits.slice(0, -p)}.${digits.slice(-p)}`;
    });
}

/** Values the schema accepts, biased towards realistic ones so that handlers get past validation. */
export function valid(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  const places = schema['x-exact-decimal'];
  if (places !== undefined) return exactDecimal(places);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map(valid));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format === 'date') return isoDate(schema);
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    }
    case 'integer':
    case 'number': {
      const min =
        schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max =
        schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
      const step = schema.multipleOf;
      if (type === 'integer' && step !== undefined)
        return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);
      return type === 'integer'
        ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? valid(schema.items) : fc.anything(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = valid(v);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in props) });
    }
    default:
      return fc.jsonValue();
  }
}

const HUGE = 'x'.repeat(200_000);
const ODD_STRINGS = [
  '',
  ' ',
  '2025-02-30',
  '2025-13-01',
  '99999-01-01',
  '0000-00-00',
  '1969-12-31',
  '../../etc/passwd',
  "1' or '1'='1",
  '%00',
  '\u0000',
  '😀',
  '<script>alert(1)</script>',
  'NaN',
  '-1',
  '1e309',
  HUGE,
];
const ODD_NUMBERS = [-1, 0, 1.5, -0.0001, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63];
const WRONG_TYPES: unknown[] = [null, true, [], {}, 'text', 12.5, [1, 2]];

/** A value this property should reject: the wrong type, an odd string, an out-of-range number. */
export function invalidValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const pool: unknown[] = [...WRONG_TYPES];
  if (type === 'string' || schema.format) pool.push(...ODD_STRINGS);
  if (type === 'integer' || type === 'number') pool.push(...ODD_NUMBERS, ...ODD_STRINGS.slice(0, 6));
  return fc.constantFrom(...pool);
}

/** A valid object with one property broken, a required one removed, or an unknown one added. */
export function invalidObject(schema: JsonSchema): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const options: fc.Arbitrary<unknown>[] = [
    base.map((o) => ({ ...o, unexpected_field_xyz: 'surprise' })),
    fc.constantFrom(...WRONG_TYPES, ...ODD_STRINGS.slice(0, 4)),
  ];
  if (props.length > 0) {
    options.push(
      fc
        .tuple(base, fc.constantFrom(...props))
        .chain(([o, [key, propSchema]]) => invalidValue(propSchema).map((bad) => ({ ...o, [key]: bad }))),
    );
  }
  const required = schema.required ?? [];
  if (required.length > 0) {
    options.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([o, key]) => {
        const copy = { ...o };
        delete copy[key];
        return copy;
      }),
    );
  }
  return fc.oneof(...options);
}

export const ODD_PATH_SEGMENTS = [
  '..',
  '%2F',
  '%2e%2e',
  '%00',
  '%F0%9F%98%80',
  encodeURIComponent("1' or '1'='1"),
  'x'.repeat(500),
  '-1',
  '0',
  '99999999999999999999',
  '2025-02-30',
  'null',
];
