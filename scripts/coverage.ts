import type { Profiler } from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The files of src/ (relative to the repository) whose code ran in a precise coverage taken, sorted. */
export function srcFilesRan(result: Profiler.ScriptCoverage[]): string[] {
  return result
    .filter((s) => s.url.startsWith('file://'))
    .filter((s) => s.functions.some((f) => f.ranges.some((r) => r.count > 0)))
    .map((s) => path.relative(ROOT, fileURLToPath(s.url)))
    .filter((f) => f.startsWith(`src${path.sep}`))
    .sort();
}
