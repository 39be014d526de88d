import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The recorded provider answers beside the project (../shared/fixtures), present on the team's
 * machines and in CI but not in a user's clone. Only conformance tests read them.
 */
export const SHARED_FIXTURES_DIR =
  process.env.SHARED_FIXTURES_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures');

export const sharedFixturesPresent = existsSync(SHARED_FIXTURES_DIR);

/** Reads a recorded answer and strips the provenance `_note` key, which is not protocol. */
export function sharedFixture<T = unknown>(relative: string): T {
  const value = JSON.parse(readFileSync(path.join(SHARED_FIXTURES_DIR, relative), 'utf8')) as unknown;
  if (value && typeof value === 'object' && !Array.isArray(value) && '_note' in value) {
    const { _note: _, ...rest } = value as Record<string, unknown>;
    return rest as T;
  }
  return value as T;
}
