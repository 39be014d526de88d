/** The API's field names: lower-case words joined by `_` (`btc_dkk`, `csv_locale`, `time_dk`). */
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

export const isSnakeCase = (name: string): boolean => SNAKE.test(name);

interface Schema {
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

const branches = (s: Schema) => [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
const sub = (s: boolean | Schema | undefined): Schema | undefined => (typeof s === 'object' ? s : undefined);

/** Every field name a JSON Schema declares, at any depth and in every branch, that is not snake_case. */
export function nonSnakeSchemaNames(schema: unknown, at = ''): string[] {
  const s = schema as Schema | undefined;
  if (s === null || typeof s !== 'object') return [];
  const found: string[] = [];
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (!isSnakeCase(name)) found.push(`${at}.${name}`);
    found.push(...nonSnakeSchemaNames(p, `${at}.${name}`));
  }
  // the keys of a record are data (feed names), its values' fields are not
  for (const p of Object.values(s.patternProperties ?? {})) found.push(...nonSnakeSchemaNames(p, `${at}.*`));
  found.push(...nonSnakeSchemaNames(sub(s.additionalProperties), `${at}.*`));
  found.push(...nonSnakeSchemaNames(s.items, `${at}[]`));
  for (const b of [...(s.prefixItems ?? []), ...branches(s)]) found.push(...nonSnakeSchemaNames(b, at));
  return found;
}

/**
 * Every key of a JSON value, at any depth, that is not snake_case. Where `schema` says an object
 * is a record (no declared fields, only `patternProperties` or an `additionalProperties` schema),
 * its keys are data and only its values are looked into; one declared free-form (no fields,
 * `additionalProperties: true`: the OpenAPI document, in OpenAPI's own names) is left out.
 * Without a schema every key counts.
 */
export function nonSnakeKeys(value: unknown, schema?: unknown, at = ''): string[] {
  if (Array.isArray(value)) {
    const s = schema as Schema | undefined;
    return value.flatMap((v, i) => nonSnakeKeys(v, s?.items ?? itemsOf(s), `${at}[${i}]`));
  }
  if (value === null || typeof value !== 'object') return [];
  const s = objectBranch(schema as Schema | undefined);
  if (s !== undefined && s.properties === undefined && s.additionalProperties === true) return [];
  const record =
    s !== undefined &&
    s.properties === undefined &&
    (s.patternProperties !== undefined || sub(s.additionalProperties) !== undefined);
  const found: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (!record && !isSnakeCase(key)) found.push(`${at}.${key}`);
    const inner =
      s?.properties?.[key] ?? Object.values(s?.patternProperties ?? {})[0] ?? sub(s?.additionalProperties);
    found.push(...nonSnakeKeys(v, inner, `${at}.${key}`));
  }
  return found;
}

/** The branch of a union that describes an object (the answers' unions are `X | null`). */
function objectBranch(s: Schema | undefined): Schema | undefined {
  if (s === undefined) return undefined;
  if (s.properties || s.patternProperties || s.additionalProperties !== undefined) return s;
  const objects = branches(s)
    .map(objectBranch)
    .filter((b) => b !== undefined);
  // several object branches (an event's types): their fields together
  if (objects.length > 1)
    return {
      properties: Object.assign({}, ...objects.map((b) => b.properties ?? {})) as Schema['properties'],
    };
  return objects[0];
}

function itemsOf(s: Schema | undefined): Schema | undefined {
  return branches(s ?? {}).find((b) => b.items !== undefined)?.items;
}
