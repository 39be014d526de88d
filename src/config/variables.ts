import { BITCOIN } from './bitcoin.js';
import { ELECTRICITY } from './electricity.js';
import { INTEGRATIONS } from './integrations.js';
import { SERVER } from './server.js';
import type { Reading, Variable } from './variable.js';

/**
 * Every variable the service reads, in the order of the README's table and .env.example
 * (generated from it by `npm run config-docs`; a test keeps them current).
 */
export const VARIABLES = { ...SERVER, ...BITCOIN, ...ELECTRICITY, ...INTEGRATIONS };

export type VarName = keyof typeof VARIABLES;
export type Values = { readonly [K in VarName]: ReturnType<(typeof VARIABLES)[K]['parse']> };

/** Every variable's default. */
export const DEFAULTS = Object.fromEntries(
  Object.entries(VARIABLES).map(([name, v]) => [name, v.default]),
) as { readonly [K in VarName]: string };

const ALL: Record<string, Variable> = VARIABLES;

/**
 * Every variable's value from `lookup` (unset or blank: its default), each read once, and every
 * refusal as `NAME: why`: first those between variables (said after reading another one: a
 * token required by HOST, a backup beside a server…), then those of a variable's own text, each
 * kind in the variables' order. A secret's text is never quoted in one.
 */
export function readVariables(
  lookup: (name: string) => string | undefined,
  context: { cwd: string; stdoutIsTty: boolean },
): { values: Values; problems: string[] } {
  const values: Record<string, unknown> = {};
  const between = new Map<string, string[]>(Object.keys(ALL).map((name) => [name, []]));
  const own = new Map<string, string[]>(Object.keys(ALL).map((name) => [name, []]));
  const declared = (name: string) => {
    const v = ALL[name];
    if (!v) throw new Error(`no configuration variable ${name}`);
    return v;
  };
  const text = (name: string) => {
    const v = lookup(name);
    return v === undefined || v.trim() === '' ? declared(name).default : v.trim();
  };
  const reading = new Set<string>();
  const value = (name: string): unknown => {
    if (name in values) return values[name];
    if (reading.has(name)) throw new Error(`configuration variables read each other: ${name}`);
    reading.add(name);
    const v = declared(name);
    const raw = text(name);
    let readOther = false;
    const other =
      <T>(f: (n: string) => T) =>
      (n: string) => {
        readOther = true;
        return f(n);
      };
    const read: Reading = {
      text: other(text),
      value: other(value),
      refuse: (why, fallback) => {
        const said = v.secret && raw !== '' ? why.split(raw).join('***') : why;
        (readOther ? between : own).get(name)!.push(`${name}: ${said}`);
        return fallback;
      },
      ...context,
    };
    values[name] = v.parse(raw, read);
    return values[name];
  };
  for (const name of Object.keys(ALL)) value(name);
  return { values: values as Values, problems: [...between.values(), ...own.values()].flat() };
}
