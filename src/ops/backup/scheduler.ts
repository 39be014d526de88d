import { Cron } from 'croner';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { FeedHealth } from '../../shared/health.js';
import type { Clock } from '../../shared/clock.js';
import { sleep } from '../../shared/sleep.js';
import { backupName, type BackupService } from './service.js';

/** Daily at 04:07 Danish time: after the btc retention (03:17) has pruned and vacuumed. */
export const DEFAULT_BACKUP_PATTERN = '7 4 * * *';
const DAY_MS = 86_400_000;
/** A partial file untouched this long belongs to no backup being written: one that stopped midway. */
const PARTIAL_ABANDONED_MS = 10 * 60_000;
const PARTIAL_NAME = /^\.satwatt-\d{8}T\d{6}Z\.tar\.gz\.partial-[0-9a-f-]{36}$/;

export interface BackupSchedulerDeps {
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
export class BackupScheduler {
  private job: Cron | null = null;
  private running: Promise<void> | null = null;
  private first: Promise<void> | null = null;
  private readonly stopping = new AbortController();

  constructor(private readonly deps: BackupSchedulerDeps) {
    deps.health.detail = `daily into ${deps.dir}, keeping ${deps.keep}`;
  }

  start(): void {
    this.job = new Cron(this.deps.pattern, { timezone: 'Europe/Copenhagen', protect: true }, () =>
      this.runNow(),
    );
    const signal = AbortSignal.any([this.stopping.signal, this.deps.shutdown]);
    this.first = (async () => {
      const newest = (await this.backups().catch(() => [])).at(-1);
      const age = newest ? this.deps.clock.now().getTime() - newest.at : Infinity;
      if (age < DAY_MS) return;
      await sleep(this.deps.firstRunDelayMs, signal);
      if (!signal.aborted) await this.runNow();
    })();
  }

  /** Settles once the start's check (and the backup it made, if any) is done. */
  firstRunDone(): Promise<void> {
    return this.first ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.job?.stop();
    this.job = null;
    await this.first;
    await this.running;
  }

  /** One backup now unless one is under way; never throws. */
  runNow(): Promise<void> {
    this.running ??= (async () => {
      const { dir, health, log } = this.deps;
      const started = performance.now();
      try {
        await mkdir(dir, { recursive: true });
        const name = backupName(this.deps.clock.now());
        const { bytes } = await this.deps.service.writeFile(path.join(dir, name));
        health.detail = `daily into ${dir}, keeping ${this.deps.keep}; last ${name} (${bytes} bytes)`;
        const removed = await this.prune(name).catch((e: unknown) => {
          throw new Error(`${name} was written; removing older backups failed: ${(e as Error).message}`, {
            cause: e,
          });
        });
        health.success();
        log.info({ file: name, bytes, removed, ms: Math.round(performance.now() - started) }, 'backup: done');
      } catch (e) {
        if (this.deps.shutdown.aborted)
          return log.info('backup: abandoned by the stop; its files are removed');
        health.failure(e);
        log.error({ err: e }, 'backup failed; trying again at the next daily run');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /**
   * The backups this scheduler wrote, oldest first: regular files (not a folder, not a link)
   * named as it names them, with a time that is a real instant and not in the future. Anything
   * else in the folder is not its own to count or to remove.
   */
  private async backups(): Promise<{ name: string; at: number }[]> {
    const now = this.deps.clock.now().getTime();
    const found: { name: string; at: number }[] = [];
    for (const entry of await readdir(this.deps.dir, { withFileTypes: true })) {
      const at = entry.isFile() ? timeOf(entry.name) : null;
      if (at !== null && at <= now) found.push({ name: entry.name, at });
    }
    return found.sort((a, b) => a.at - b.at);
  }

  /** Removes the oldest beyond `keep`, never `written`, and partial files left by a stopped write. */
  private async prune(written: string): Promise<string[]> {
    const all = await this.backups();
    const old = all
      .slice(0, Math.max(0, all.length - this.deps.keep))
      .map((b) => b.name)
      .filter((name) => name !== written);
    for (const name of old) await rm(path.join(this.deps.dir, name), { force: true });
    const now = Date.now();
    for (const entry of await readdir(this.deps.dir, { withFileTypes: true })) {
      if (!entry.isFile() || !PARTIAL_NAME.test(entry.name)) continue;
      const file = path.join(this.deps.dir, entry.name);
      const { mtimeMs } = await stat(file);
      if (now - mtimeMs > PARTIAL_ABANDONED_MS) await rm(file, { force: true });
    }
    return old;
  }
}

/** The time in a backup's name (satwatt-20261125T040700Z.tar.gz), or null for a name it never writes. */
export function timeOf(name: string): number | null {
  const m = /^satwatt-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz$/.exec(name);
  if (!m) return null;
  const at = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return backupName(new Date(at)) === name ? at : null;
}
