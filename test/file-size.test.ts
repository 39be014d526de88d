import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url);
const LIMIT = 320;

/** The files of the product and its scripts: code a reader takes in whole, so none is long. */
function productionFiles(folder: string): string[] {
  return readdirSync(new URL(folder, ROOT), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !/\.test\.ts$/.test(f))
    .map((f) => path.join(folder, f));
}

describe('the production files', () => {
  it(`are ${LIMIT} lines at most each`, () => {
    const files = [...productionFiles('src'), ...productionFiles('scripts')];
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => [f, readFileSync(new URL(f, ROOT), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > LIMIT);
    expect(long).toEqual([]);
  });
});
