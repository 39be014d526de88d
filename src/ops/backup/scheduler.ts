import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { FeedHealth } from '../../shared/health.js';
import type { Clock } from '../../shared/clock.js';
import type { Job } from '../../jobs/job.js';
import { backupName, type BackupService } from './service.js';

/** Daily at 04:07 Danish time: after the btc retention (03:17) has pruned and vacuumed. */
export const DEFAULT_BACKUP_PATTERN = '7 4 * * *';
const DAY_MS = 86_400_000;
/** A partial file untouched this long belongs to no backup being written: one that stopped midway. */
const PARTIAL_ABANDONED_MS = 10 * 60_000;
const PARTIAL_NAME = /^\.satwatt-\d{8}T\d{6}Z\.tar\.gz\.partial-[0-9a-f-]{36}$/;

export interface BackupJobDeps {
  service: Pick<BackupService, 'writeFile'>;
  dir: string;
  keep: number;
  clock: Clock;
  log: Logger;
  health: FeedHealth;
  shutdown: AbortSignal;
  pattern: string;
  /** A start whose newest backup is a day old or more makes one after this long. */
  firstRunDelayMs: number;
}

/**
 * A backup a day into BACKUP_DIR, the oldest removed beyond BACKUP_KEEP. A failure (a full
 * disk, a folder gone) is reported in /health as the feed `backup` and tried again the next
 * day; it never stops the service.
 */
export function backupJob(deps: BackupJobDeps): Job {
  const { dir, keep, clock, health, log } = deps;
  health.detail = `daily into ${dir}, keeping ${keep}`;
  return {
    name: 'backup',
    schedule: { cron: deps.pattern },
    first: {
      afterMs: deps.firstRunDelayMs,
      when: async () => {
        const newest = (await backups(dir, clock.now()).catch(() => [])).at(-1);
        return (newest ? clock.now().getTime() - newest.at : Infinity) >= DAY_MS;
      },
    },
    // never throws
    round: async () => {
      const started = performance.now();
      try {
        await mkdir(dir, { recursive: true });
        const name = backupName(clock.now());
        const { bytes } = await deps.service.writeFile(path.join(dir, name));
        health.detail = `daily into ${dir}, keeping ${keep}; last ${name} (${bytes} bytes)`;
        const removed = await prune(dir, keep, name, clock.now()).catch((e: unknown) => {
          throw new Error(`${name} was written; removing older backups failed: ${(e as Error).message}`, {
            cause: e,
          });
        });
        health.success();
        log.info({ file: name, bytes, removed, ms: Math.round(performance.now() - started) }, 'backup: done');
      } catch (e) {
        if (deps.shutdown.aborted) return log.info('backup: abandoned by the stop; its files are removed');
        health.failure(e);
        log.error({ err: e }, 'backup failed; trying again at the next daily run');
      }
    },
  };
}

/**
 * The backups this job wrote, oldest first: regular files (not a folder, not a link) named as it
 * names them, with a time that is a real instant and not in the future. Anything else in the
 * folder is not its own to count or to remove.
 */
async function backups(dir: string, now: Date): Promise<{ name: string; at: number }[]> {
  const found: { name: string; at: number }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const at = entry.isFile() ? timeOf(entry.name) : null;
    if (at !== null && at <= now.getTime()) found.push({ name: entry.name, at });
  }
  return found.sort((a, b) => a.at - b.at);
}

/** Removes the oldest beyond `keep`, never `written`, and partial files left by a stopped write. */
async function prune(dir: string, keep: number, written: string, now: Date): Promise<string[]> {
  const all = await backups(dir, now);
  const old = all
    .slice(0, Math.max(0, all.length - keep))
    .map((b) => b.name)
    .filter((name) => name !== written);
  for (const name of old) await rm(path.join(dir, name), { force: true });
  const wall = Date.now();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !PARTIAL_NAME.test(entry.name)) continue;
    const file = path.join(dir, entry.name);
    const { mtimeMs } = await stat(file);
    if (wall - mtimeMs > PARTIAL_ABANDONED_MS) await rm(file, { force: true });
  }
  return old;
}

/** The time in a backup's name (satwatt-20261125T040700Z.tar.gz), or null for a name it never writes. */
export function timeOf(name: string): number | null {
  const m = /^satwatt-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz$/.exec(name);
  if (!m) return null;
  const at = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return backupName(new Date(at)) === name ? at : null;
}
