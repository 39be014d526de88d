import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadHomePage } from './page.js';
import { staticText } from './page/i18n.js';

const folder = new URL('./page/', import.meta.url);
const files = readdirSync(folder).filter((n) => !n.endsWith('.test.ts'));
const modules = files.filter((n) => n.endsWith('.js'));

describe('the home page as served', () => {
  const loaded = loadHomePage();
  const page = { ...loaded, html: loaded.html.body };

  it('is one document in Danish, its static text filled from the messages, nothing left to fill', () => {
    expect(page.html).toContain('<html lang="da">');
    expect(page.html).toContain(`<span data-t="heading">${staticText('da', 'heading')}</span>`);
    expect(page.html).not.toMatch(/\{\{|\/\*STYLE\*\/|<!--MODULES-->/);
    // every text the script re-labels exists in English too
    for (const [, key] of page.html.matchAll(/data-t(?:-label)?="(\w+)"/g))
      expect(staticText('en', key!), key).not.toBeNull();
  });

  it('loads every module of the folder under its version at once, and allows no inline script', () => {
    expect(page.version).toMatch(/^[0-9a-f]{12}$/);
    expect([...page.modules.keys()].sort()).toEqual(modules.sort());
    for (const name of modules)
      expect(page.html).toContain(`<link rel="modulepreload" href="/page/${page.version}/${name}" />`);
    expect(page.html).toContain(`<script type="module" src="/page/${page.version}/main.js"></script>`);
    expect(page.html).not.toMatch(/<script>/);
    expect(page.contentSecurityPolicy).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(loadHomePage().version).toBe(page.version);
    for (const file of [loaded.html, ...loaded.modules.values()])
      expect(gunzipSync(file.gzip).toString()).toBe(file.body);
  });

  it('keeps each file of the page small and every module type-checked', () => {
    for (const name of files) {
      const lines = readFileSync(new URL(name, folder), 'utf8').split('\n').length;
      expect(lines, name).toBeLessThanOrEqual(250);
    }
    for (const name of modules)
      expect(readFileSync(new URL(name, folder), 'utf8').startsWith('// @ts-check\n'), name).toBe(true);
    const config = readFileSync(new URL('../../../tsconfig.page.json', import.meta.url), 'utf8');
    expect(config).toContain('"src/power/prices/page/*.js"');
  });
});
