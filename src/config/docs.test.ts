import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envExample, readmeTable, withTable } from './docs.js';
import { VARIABLES } from './variables.js';

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

describe('the configuration documents, generated from one list', () => {
  it('README.md holds the current table (run npm run config-docs after changing a variable)', () => {
    const readme = read('README.md');
    expect(withTable(readme)).toBe(readme);
    for (const name of Object.keys(VARIABLES)) expect(readmeTable()).toContain(`| \`${name}\` |`);
  });

  it('.env.example is the current one, every variable once with its default', () => {
    const example = read('.env.example');
    expect(example).toBe(envExample());
    const assigned = example.split('\n').filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l));
    expect(assigned).toEqual(Object.entries(VARIABLES).map(([n, v]) => `${n}=${v.default}`));
  });

  it('writes a comment of plain text: link text kept, backticks dropped', () => {
    expect(envExample()).toContain('the grid company whose household tariff applies (the list);');
    expect(envExample()).not.toMatch(/^#.*`/m);
  });
});
