// Builds dist/ from src/ with tsc (tsconfig.build.json) and copies the files tsc does not emit
// (page assets). Plain JavaScript so that `npm start` needs neither tsx nor a build on every boot:
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
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

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

/** Compiles into a fresh folder beside dist/ and swaps it in, so a half build is never run. */
export function build() {
  const tsc = findTsc();
  if (!tsc) throw new Error('typescript is not installed: run `npm install` (with dev dependencies)');
  const out = path.join(ROOT, `.dist-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const res = spawnSync(
    process.execPath,
    [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (res.status !== 0) {
    rmSync(out, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${res.status})`);
  }
  // Everything under src/ that tsc does not compile (page assets) is copied beside its module.
  for (const file of walk(SRC)) {
    if (file.endsWith('.ts')) continue;
    const target = path.join(out, path.relative(SRC, file));
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(file, target);
  }
  writeFileSync(path.join(out, '.built'), `${new Date().toISOString()}\n`);
  rmSync(DIST, { recursive: true, force: true });
  renameSync(out, DIST);
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
