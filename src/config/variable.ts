import type { Static, TSchema, Type } from 'typebox';

/**
 * TypeBox's builders, handed to a declaration's schema when it is read: the config is loaded
 * before the database starts to open, and TypeBox (a large part of the bundle) only after.
 */
export type Builders = typeof Type;

/**
 * One configuration variable, declared once: its default and meaning (the README's table and
 * .env.example are generated from them), whether its text is a secret, the TypeBox schema of its
 * value and the parse from text to that value, which refuses what it cannot read.
 */
export interface Variable<T = unknown> {
  readonly group: string;
  readonly default: string;
  /** Markdown: the README shows it as is, .env.example as plain text. */
  readonly meaning: string;
  /** A token, or a URL that may hold a password: its text is never quoted in a refusal. */
  readonly secret: boolean;
  /** What the value is once read (the config's type); a test holds every parse to it. */
  readonly schema: (t: Builders) => TSchema;
  readonly parse: (text: string, read: Reading) => T;
}

/** What a parse is given besides its own text. */
export interface Reading {
  /** Another variable's text, trimmed; its default when unset or blank. */
  text(name: string): string;
  /** Another variable's value; null-like fallbacks where it was refused. */
  value(name: string): unknown;
  /** Records why the text is refused (its variable's name goes before it) and answers `fallback`. */
  refuse<T>(why: string, fallback: T): T;
  /** Relative folders are resolved against it. */
  readonly cwd: string;
  /** Whether stdout is a terminal: LOG_FORMAT's default. */
  readonly stdoutIsTty: boolean;
}

/** A declaration without its group, which its section gives it. */
export type Declared<T = unknown> = Omit<Variable<T>, 'group'>;
interface Doc {
  default: string;
  meaning: string;
  secret?: boolean;
}

export function variable<S extends TSchema>(
  doc: Doc,
  schema: (t: Builders) => S,
  parse: (text: string, read: Reading) => Static<S>,
): Declared<Static<S>> {
  return { default: doc.default, meaning: doc.meaning, secret: doc.secret ?? false, schema, parse };
}

/** Variables under one heading of the README's table and .env.example, in their order. */
export function section<const V extends Record<string, Declared>>(
  group: string,
  vars: V,
): { [K in keyof V]: V[K] & { group: string } } {
  return Object.fromEntries(Object.entries(vars).map(([name, v]) => [name, { ...v, group }])) as never;
}

/** Text matching `pattern` (anchored), as it was written or as `normal` writes it. */
export function matching(doc: Doc, pattern: string, expected: string, normal = (v: string) => v) {
  const re = new RegExp(pattern);
  return variable(
    doc,
    (t) => t.String({ pattern }),
    (v, read) => normal(re.test(v) ? v : read.refuse(`expected ${expected}, got "${v}"`, v)),
  );
}

export function whole(doc: Doc, min: number, max: number) {
  return variable(
    doc,
    (t) => t.Integer({ minimum: min, maximum: max }),
    (v, read) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < min || n > max)
        return read.refuse(`expected a whole number from ${min} to ${max}, got "${v}"`, min);
      return n;
    },
  );
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];
export const isFalse = (v: string) => FALSE.includes(v.toLowerCase());

export function flag(doc: Doc) {
  return variable(
    doc,
    (t) => t.Boolean(),
    (text, read) => {
      const v = text.toLowerCase();
      if (TRUE.includes(v)) return true;
      if (isFalse(v)) return false;
      return read.refuse(`expected true or false, got "${v}"`, false);
    },
  );
}

/** Text taken as it is; a default that is not empty. */
export function text(doc: Doc) {
  return variable(
    doc,
    (t) => t.String({ minLength: 1 }),
    (v) => v,
  );
}

/** Text that may be unset (null). */
export function optional(doc: Doc) {
  return variable(
    doc,
    (t) => t.Union([t.String({ minLength: 1 }), t.Null()]),
    (v) => (v === '' ? null : v),
  );
}

/** The schema of one of `values`. */
export const literals = <const T extends readonly string[]>(t: Builders, values: T) =>
  t.Unsafe<T[number]>(t.Union(values.map((v) => t.Literal(v))));

/** One of `values`, in the letter case `normal` gives it (the refusal quotes the text as written). */
export function oneOf<const T extends readonly string[]>(
  doc: Doc,
  values: T,
  expected: string,
  normal: (v: string) => string = (v) => v,
) {
  return variable(
    doc,
    (t) => literals(t, values),
    (v, read) => {
      const n = normal(v);
      return (values as readonly string[]).includes(n)
        ? n
        : read.refuse(`expected ${expected}, got "${v}"`, values[0] as T[number]);
    },
  );
}

/** A provider's base URL of one of `protocols`, without trailing slashes. */
export function baseUrl(doc: Doc, protocols: string[]) {
  return variable(
    doc,
    (t) => t.String({ format: 'uri' }),
    (v, read) => {
      try {
        const u = new URL(v);
        if (!protocols.includes(u.protocol))
          return read.refuse(`expected a ${protocols.join(' or ')} URL, got "${u.protocol}"`, v);
        return v.replace(/\/+$/, '');
      } catch {
        return read.refuse(`not a valid URL: "${v}"`, v);
      }
    },
  );
}

/** The text's items between `separator`s, trimmed, the empty ones left out. */
export const items = (v: string, separator: string) =>
  v
    .split(separator)
    .map((p) => p.trim())
    .filter(Boolean);
