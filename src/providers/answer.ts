import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ProviderError } from './errors.js';

/**
 * A provider's answer as a TypeBox schema, the one place its wire format is written down, and
 * the refusal of what does not match it. A field may say in its `x-refused` what is wrong with it,
 * missing or not (`Type.String({ minLength: 1, 'x-refused': 'is not a text' })`); a
 * `Type.Refine` says it with the value at hand; elsewhere TypeBox's own words are used.
 */
export interface Answer<S extends TSchema> {
  /** Whether the body is as declared. */
  is(body: unknown): body is Static<S>;
  /** The body as declared, or a malformed answer naming the first place the schema refuses. */
  parse(body: unknown, what?: string): Static<S>;
  /** Where and why the body is not as declared (`/records/0/TimeUTC must match pattern …`; up to three places), or null. */
  refusal(body: unknown): string | null;
}

/** How a place is named: by JSON Pointer (`/result/0/id`), or as code reads it (`result[0].id`). */
export type Places = 'pointer' | 'accessor';

export function answer<S extends TSchema>(
  provider: string,
  schema: S,
  places: Places = 'pointer',
): Answer<S> {
  const check = Compile(schema);
  // The first error of each place, three places at most. Left out: what only sums up the errors
  // below it (no branch of a union matched, an extra property's schema failed), and a branch
  // of a union refused at the union's own place when another branch got further into the value.
  const refusal = (body: unknown) => {
    const errors = check.Errors(body);
    const deeper = (e: SchemaError) => errors.some((o) => o.instancePath.startsWith(`${e.instancePath}/`));
    const kept = errors.filter(
      (e) => !SUMMARIES.includes(e.keyword) && !(BRANCH.test(e.schemaPath) && deeper(e)),
    );
    const said = new Map<string, string>();
    for (const e of kept.length > 0 ? kept : errors) {
      const [place, why] = describe(schema, e, places);
      if (!said.has(place)) said.set(place, `${place} ${why}`);
      if (said.size === 3) break;
    }
    return said.size > 0 ? [...said.values()].join('; ') : null;
  };
  return {
    is: (body): body is Static<S> => check.Check(body),
    parse(body, what) {
      if (check.Check(body)) return body;
      const why = refusal(body) ?? 'not as declared';
      throw malformed(provider, what ? `${what} at ${why}` : why);
    },
    refusal: (body) => (check.Check(body) ? null : refusal(body)),
  };
}

/** An answer that cannot be taken as it is: the call failed for good (no retry), nothing of it is kept. */
export function refused(provider: string, message: string): ProviderError {
  return new ProviderError(provider, message, { status: 200, transient: false });
}

/** An answer not of its declared shape (`what` names the place), or with a value that cannot be true. */
export function malformed(provider: string, what: string): ProviderError {
  return refused(provider, `malformed answer: ${what}`);
}

const SUMMARIES = ['anyOf', 'additionalProperties'];
const BRANCH = /\/anyOf\/\d+$/;

interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: object;
  message: string;
}

function describe(root: TSchema, e: SchemaError, places: Places): [place: string, why: string] {
  const node = schemaAt(root, e.schemaPath);
  let path = e.instancePath;
  let message = e.message;
  if (e.keyword === 'required') {
    const name = (e.params as { requiredProperties?: string[] }).requiredProperties?.[0] ?? '';
    const own = refusedOf((node?.properties as Record<string, unknown> | undefined)?.[name]);
    if (own !== undefined)
      [path, message] = [`${path}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, own];
  } else if (e.keyword !== '~refine') {
    // a branch of a union says what the union says
    const union = BRANCH.test(e.schemaPath) ? schemaAt(root, e.schemaPath.replace(BRANCH, '')) : undefined;
    message = refusedOf(node) ?? refusedOf(union) ?? message;
  }
  return [places === 'pointer' ? path || '/' : accessor(path), message];
}

const refusedOf = (node: unknown): string | undefined => {
  const said = (node as Record<string, unknown> | undefined)?.['x-refused'];
  return typeof said === 'string' ? said : undefined;
};

/** The schema a `#/properties/a/items/…` path of TypeBox's errors leads to, if it can be followed. */
function schemaAt(root: TSchema, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const step of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[step];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** `/result/0/id` as `result[0].id`; the whole answer is `answer`. */
function accessor(pointer: string): string {
  const steps = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (steps.length === 0) return 'answer';
  return steps.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}
