import { writeFileSync } from 'node:fs';
import { PAGE_TYPES, pageTypes } from '../src/power/prices/page-types.js';

/** Writes the home page's answer types (src/power/prices/page/api.d.ts) from the routes' schemas. */
writeFileSync(PAGE_TYPES, await pageTypes());
console.log('wrote src/power/prices/page/api.d.ts');
