// Builds dist/ from src/: tsc (tsconfig.build.json) compiles it, then esbuild bundles tsc's output
// into dist/main.js and a few chunks loaded on demand, beside the files tsc does not emit (the
// database's worker thread, page assets). One bundle instead of ~650 modules took the start on an
// existing folder from 0.91 to 0.69 s (docs/operations.md, "Memory and start-up").
// Plain JavaScript so that `npm start` needs neither tsx nor a build on every boot:
// `prepare` runs it once on `npm install`; scripts/start.mjs runs it again only when src/ is newer.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
const SRC = path.join(ROOT, 'src');
const STAMP = path.join(DIST, '.built');
const LOCK = path.join(ROOT, '.dist.lock');
/** Files besides src/ whose change makes the build stale. */
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.mjs'];

const isSource = (name) => !name.endsWith('.test.ts');

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (isSource(entry.name)) yield full;
  }
}

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Why dist/ must be (re)built, or null when it is at least as new as every input. */
export function staleReason() {
  const built = mtime(STAMP);
  if (built < 0) return 'dist/ has not been built';
  for (const file of [...walk(SRC), ...INPUTS.map((f) => path.join(ROOT, f))])
    if (mtime(file) > built) return `${path.relative(ROOT, file)} is newer than dist/`;
  return null;
}

function findTsc() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

/**
 * Packages the server does not bundle: PGlite loads its WebAssembly and data files from its own
 * folder (and runs only in the worker thread), Swagger UI serves its files from its own folder,
 * and the rest are optional native add-ons their users load only when installed.
 */
const EXTERNAL = ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native', 'bufferutil', 'utf-8-validate'];

/** Compiles into a fresh folder beside dist/ and swaps it in, so a half build is never run. */
export function build() {
  const tsc = findTsc();
  if (!tsc) throw new Error('typescript is not installed: run `npm install` (with dev dependencies)');
  const out = path.join(ROOT, `.dist-${process.pid}`);
  const compiled = path.join(out, 'tsc');
  rmSync(out, { recursive: true, force: true });
  try {
    const res = spawnSync(
      process.execPath,
      [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', compiled],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (res.status !== 0) throw new Error(`tsc failed (exit ${res.status})`);
    bundle(path.join(compiled, 'main.js'), out);
    rmSync(compiled, { recursive: true, force: true });
    // Files tsc does not compile are found beside the module that reads them (new URL('./…',
    // import.meta.url)); every module is now in dist/ itself, so they go there by name.
    for (const file of walk(SRC)) {
      if (file.endsWith('.ts')) continue;
      const rel = path.relative(SRC, file);
      const target = path.join(
        out,
        rel.includes(`${path.sep}page${path.sep}`)
          ? path.join('page', path.basename(rel))
          : path.basename(rel),
      );
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(file, target);
    }
    writeFileSync(path.join(out, '.built'), `${new Date().toISOString()}\n`);
  } catch (e) {
    rmSync(out, { recursive: true, force: true });
    throw e;
  }
  rmSync(DIST, { recursive: true, force: true });
  renameSync(out, DIST);
}

function bundle(entry, outdir) {
  const esbuild = createRequire(import.meta.url)('esbuild');
  esbuild.buildSync({
    entryPoints: [entry],
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    external: EXTERNAL,
    logLevel: 'warning',
    // the CommonJS packages in the bundle require Node's own modules
    banner: {
      js: "import { createRequire as __satwattRequire } from 'node:module'; const require = __satwattRequire(import.meta.url);",
    },
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Builds when stale; one builder at a time (a lock folder), the others wait and re-check. */
export async function ensureBuilt({ quiet = false } = {}) {
  if (!staleReason()) return;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      // a builder that died leaves its lock; tsc takes seconds, never minutes
      if (Date.now() - mtime(LOCK) > 5 * 60_000) rmSync(LOCK, { recursive: true, force: true });
      await sleep(200);
    }
  }
  try {
    const reason = staleReason();
    if (!reason) return;
    if (!quiet) console.error(`satwatt: building dist/ (${reason})`);
    build();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  try {
    if (force) build();
    else await ensureBuilt();
  } catch (e) {
    console.error(`satwatt build: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
