import { readFileSync } from 'node:fs';

const read = (name: string) => readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');

/** The home page as one document: style and script inlined, so there is nothing to build or fetch but data. */
export function loadHomePage(): string {
  return read('index.html')
    .replace('/*STYLE*/', () => read('style.css'))
    .replace('/*SCRIPT*/', () => read('app.js'));
}
