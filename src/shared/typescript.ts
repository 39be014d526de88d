/**
 * A TypeScript type written from a JSON Schema as TypeBox builds it (objects, arrays, records,
 * unions, type arrays, literals, primitives), with each property's description as its comment:
 * what `Static<>` makes of the schema, for code that cannot import TypeBox (the home page).
 */
export function typeScriptOf(schema: unknown, indent = ''): string {
  const s = (schema ?? {}) as Record<string, unknown>;
  if ('const' in s)
    return typeof s.const === 'string' ? `'${s.const.replace(/['\\]/g, '\\$&')}'` : String(s.const);
  if (Array.isArray(s.anyOf)) return union(s.anyOf.map((b) => typeScriptOf(b, indent)));
  if (Array.isArray(s.type))
    return union((s.type as unknown[]).map((type) => typeScriptOf({ ...s, type }, indent)));
  switch (s.type) {
    case 'string':
    case 'boolean':
    case 'null':
      return s.type;
    case 'number':
    case 'integer':
      return 'number';
    case 'array': {
      const item = typeScriptOf(s.items, indent);
      return item.includes(' | ') && !/^\{[\s\S]*\}$/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectOf(s, indent);
    default:
      return 'unknown';
  }
}

function objectOf(s: Record<string, unknown>, indent: string): string {
  const properties = Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>);
  const patterns = Object.values((s.patternProperties ?? {}) as Record<string, unknown>);
  if (properties.length === 0 && patterns.length === 1)
    return `Record<string, ${typeScriptOf(patterns[0], indent)}>`;
  const required = new Set((s.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = properties.flatMap(([name, p]) => [
    ...comment(p.description, inner),
    `${inner}${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${typeScriptOf(p, inner)};`,
  ]);
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`;
}

function union(types: string[]): string {
  return [...new Set(types)].join(' | ');
}

/** A description as a doc comment, its words wrapped at 100 columns. */
export function comment(description: unknown, indent: string): string[] {
  if (typeof description !== 'string' || description === '') return [];
  const lines: string[] = [];
  let line = '';
  for (const word of description.split(/\s+/)) {
    if (line !== '' && indent.length + 3 + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`), `${indent} */`];
}
