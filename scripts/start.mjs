// `npm start` (and migrate, cli): runs the compiled dist/main.js in this process, building it
// first only when src/ is newer than the last build (normally `npm install` has built it).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ensureBuilt } from './build.mjs';

try {
  await ensureBuilt();
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  if (!existsSync(path.join(DIST, 'main.js'))) {
    console.error(`satwatt: cannot build dist/: ${message}`);
    process.exit(1);
  }
  console.error(`satwatt: dist/ is stale and cannot be rebuilt (${message}); running it as it is`);
}
await import(pathToFileURL(path.join(DIST, 'main.js')).href);
