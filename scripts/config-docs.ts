import { readFileSync, writeFileSync } from 'node:fs';
import { envExample, withTable } from '../src/config/docs.js';

/** Writes the README's configuration table and .env.example from the declarations in src/config/. */
const root = new URL('../', import.meta.url);
const readme = new URL('README.md', root);
writeFileSync(readme, withTable(readFileSync(readme, 'utf8')));
writeFileSync(new URL('.env.example', root), envExample());
console.log('wrote README.md (configuration table) and .env.example');
