import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { normalName, textFault, type TextKind } from '../shared/text.js';
import { isExactDecimal } from './types.js';
import { lazyValidator } from './lazy-compile.js';

/**
 * The request validator of every route: Ajv with the `date` formats and their
 * `formatMinimum`/`formatMaximum` keywords, and three rules Fastify's defaults lack.
 *
 * 1. Query, path and header values are text, so they are coerced to the schema's types; but a
 *    number must be written in plain decimal digits. Ajv's own coercion takes whatever
 *    `Number()` takes (`Infinity`, `1e400`, `0x10`, ` 7`), and Ajv then skips the bounds of a
 *    non-finite number, so `?limit=Infinity` reached SQL.
 * 2. A JSON body is not coerced: JSON has its types, and coercing a money string through a
 *    `number` branch would turn exact digits into a float.
 * 3. Every integer is bounded by the safe-integer range even where its schema names no bound.
 * 4. `x-exact-decimal: n` (the `Amount` type) takes a positive decimal of at most n decimals, as
 *    text or as a number that a float did not alter (see isExactDecimal); a refusal shows the
 *    value in words, and a decimal comma (`"12,50"`) is answered with the dotted number to send.
 * 5. `x-text: 'text' | 'name'` (the `Text` and `Name` types) refuses NUL and unpaired surrogates,
 *    and in names control and invisible characters; a name is replaced by its NFC form, which
 *    must still fit the schema's maxLength (src/shared/text.ts).
 * 6. `x-any-case: true` on a choice of text literals (`AnyCase`) first replaces a value that
 *    matches one of them in another letter case by the literal, so `dk1` is taken as `DK1`.
 */
type Part = 'body' | 'querystring' | 'params' | 'headers';

// strictNumbers (Ajv's default, named so that no later option turns it off) refuses NaN and ±Infinity.
const common = { useDefaults: true, removeAdditional: false, allErrors: false, strictNumbers: true } as const;

/** The `x-text` keyword: refuses what textFault names; a name becomes its NFC form, within maxLength. */
const checkText: SchemaValidateFunction = (kind: TextKind, data: string, parent, at) => {
  const fail = (message: string) => {
    checkText.errors = [{ keyword: 'x-text', message, params: { kind } }];
    return false;
  };
  const why = textFault(data, kind);
  if (why) return fail(why);
  if (kind !== 'name' || !at) return true;
  const nfc = normalName(data);
  const max = (parent as { maxLength?: number } | undefined)?.maxLength;
  if (max !== undefined && [...nfc].length > max)
    return fail(`must not be longer than ${max} characters in Unicode NFC`);
  at.parentData[at.parentDataProperty] = nfc;
  return true;
};

/** The `x-exact-decimal` keyword: refuses in words, showing the value and, for a comma, the fix. */
const checkDecimal: SchemaValidateFunction = (decimals: number, data: unknown) => {
  if (isExactDecimal(data, decimals)) return true;
  checkDecimal.errors = [
    { keyword: 'x-exact-decimal', message: decimalFault(data, decimals), params: { decimals } },
  ];
  return false;
};

/** Why `value` is no amount, in words a person can act on. */
export function decimalFault(value: unknown, decimals: number): string {
  const rule = `a positive decimal with at most ${decimals} decimals`;
  if (typeof value === 'string') {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    if (/^\d+,\d+$/.test(value))
      return `${shown} is not a decimal number; use a dot: ${value.replace(',', '.')}`;
    return `${shown} is not ${rule} (digits, and a dot before the decimals)`;
  }
  if (typeof value === 'number')
    return `${value} is not ${rule}, or has more digits than a float keeps (at most 15 significant digits; send it as a string)`;
  return `must be ${rule}: a string such as "12.50", or a number`;
}

/** The `x-any-case` keyword: never fails; the choice beside it does, naming the literals. */
const anyCase: SchemaValidateFunction = (_on: boolean, data: unknown, parent, at) => {
  if (typeof data !== 'string' || !at) return true;
  const literals = ((parent?.anyOf ?? []) as Schema[]).map((s) => s.const);
  const match = literals.find((l) => typeof l === 'string' && l.toLowerCase() === data.toLowerCase());
  if (match !== undefined) at.parentData[at.parentDataProperty] = match;
  return true;
};

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS; under ESM its plugin arrives as the default export's default.
  (addFormats as unknown as { default: (a: Ajv) => void }).default(ajv);
  // Before `anyOf`, whose branches would answer with the string branch's regular expression.
  ajv.addKeyword({
    keyword: 'x-exact-decimal',
    schemaType: 'number',
    errors: true,
    before: 'anyOf',
    validate: checkDecimal,
  });
  ajv.addKeyword({
    keyword: 'x-text',
    type: 'string',
    schemaType: 'string',
    modifying: true,
    errors: true,
    validate: checkText,
  });
  // Before `const`, and so before `anyOf`: the choice sees the replaced value.
  ajv.addKeyword({
    keyword: 'x-any-case',
    schemaType: 'boolean',
    modifying: true,
    before: 'const',
    validate: anyCase,
  });
  return ajv;
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  // Built on the first compile, which comes with a route's first request (lazy-compile.ts).
  let ajvs: { coercing: Ajv; plain: Ajv } | null = null;
  const instances = () =>
    (ajvs ??= {
      coercing: withFormats(new Ajv({ ...common, coerceTypes: 'array' })),
      plain: withFormats(new Ajv({ ...common, coerceTypes: false })),
    });
  return ({ schema, httpPart }) =>
    lazyValidator(() => {
      const { coercing, plain } = instances();
      const part = (httpPart ?? 'body') as Part;
      const prepared = boundIntegers(part === 'headers' ? lowerCaseNames(schema) : schema);
      if (part === 'body') return plain.compile(prepared);
      const validate = coercing.compile(prepared);
      const numeric = numericProperties(prepared);
      return numeric.length === 0 ? validate : strictNumbers(validate, numeric);
    });
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

function kindOf(schema: Schema | undefined): 'integer' | 'number' | null {
  if (!schema) return null;
  const types = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) =>
    Array.isArray(s.type) ? s.type : [s.type],
  );
  // A value that may also be text is left as text; only a purely numeric parameter is coerced.
  if (types.includes('string')) return null;
  if (types.includes('number')) return 'number';
  return types.includes('integer') ? 'integer' : null;
}

function numericProperties(schema: Schema): [string, 'integer' | 'number'][] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => {
    const kind = kindOf(s);
    return kind ? [[name, kind] as [string, 'integer' | 'number']] : [];
  });
}

function wellWritten(value: string, kind: 'integer' | 'number'): boolean {
  return (kind === 'integer' ? INTEGER : DECIMAL).test(value) && Number.isFinite(Number(value));
}

/** Refuses a number not written in decimal digits before Ajv's coercion can take it. */
function strictNumbers(validate: ValidateFunction, numeric: [string, 'integer' | 'number'][]) {
  const check = ((data: unknown, context?: unknown) => {
    if (data !== null && typeof data === 'object') {
      for (const [name, kind] of numeric) {
        const v = (data as Record<string, unknown>)[name];
        const texts = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
        const bad = texts.find((t): t is string => typeof t === 'string' && !wellWritten(t, kind));
        if (bad === undefined) continue;
        check.errors = [numberError(name, kind, bad)];
        return false;
      }
    }
    const ok = (validate as (d: unknown, c?: unknown) => boolean)(data, context);
    check.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  // Fastify passes the parent object (so that defaults and coercion reach the request) only to
  // functions that carry Ajv's schemaEnv.
  Object.assign(check, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return check;
}

function numberError(name: string, kind: 'integer' | 'number', value: string): ErrorObject {
  const comma = kind === 'number' && /^-?\d+,\d+$/.test(value);
  return {
    instancePath: `/${name}`,
    schemaPath: `#/properties/${name}/type`,
    keyword: 'type',
    params: { type: kind },
    message: comma
      ? `"${value}" is not a decimal number; use a dot: ${value.replace(',', '.')}`
      : kind === 'integer'
        ? 'must be a whole number written in decimal digits'
        : 'must be a finite number written in decimal digits',
  };
}

/** A copy of the schema in which every integer lies within ±(2^53 − 1). */
function boundIntegers(schema: unknown): Schema {
  return walk(schema) as Schema;
  function walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'const' || k === 'enum' ? v : walk(v);
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (types.includes('integer')) {
      out.minimum = Math.max(out.minimum ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
      out.maximum = Math.min(out.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    }
    return out;
  }
}

/** Node gives header names in lower case; the schema's names must match them. */
function lowerCaseNames(schema: unknown): Schema {
  const s = schema as Schema;
  return {
    ...s,
    ...(s.properties && {
      properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k.toLowerCase(), v])),
    }),
    ...(s.required && { required: s.required.map((k) => k.toLowerCase()) }),
  };
}
