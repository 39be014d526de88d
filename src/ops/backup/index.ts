import type { AppContext, Feature } from '../../context.js';
import { backupRoutes } from './routes.js';
import { backupJob, DEFAULT_BACKUP_PATTERN } from './scheduler.js';
import { BackupService } from './service.js';

export function createBackupService(ctx: AppContext, opts: { stallMs?: number } = {}): BackupService {
  return new BackupService({
    database: ctx.database,
    dataDir: ctx.config.dataDir,
    clock: ctx.clock,
    stallMs: opts.stallMs ?? ctx.config.backupStallMs,
    shutdown: ctx.shutdown,
  });
}

/**
 * GET /api/backup, and with BACKUP_DIR the daily backup. It belongs to the process, whichever
 * services it runs: the embedded database has one process, which is always the one to back it
 * up (with a server there is nothing to copy, and BACKUP_DIR is refused by the config).
 */
export function createBackupFeature(
  ctx: AppContext,
  opts: { pattern?: string; firstRunDelayMs?: number } = {},
): Feature {
  const service = createBackupService(ctx);
  const backup = ctx.config.backup;
  const daily =
    backup && service.available
      ? backupJob({
          service,
          dir: backup.dir,
          keep: backup.keep,
          clock: ctx.clock,
          log: ctx.log.child({ feature: 'backup' }),
          health: ctx.health.feed('backup'),
          shutdown: ctx.shutdown,
          pattern: opts.pattern ?? DEFAULT_BACKUP_PATTERN,
          firstRunDelayMs: opts.firstRunDelayMs ?? 60_000,
        })
      : null;
  let cleaning: Promise<void> | null = null;
  return {
    name: 'backup',
    routes: (app) => backupRoutes(app, service, ctx.database.kind),
    start: () => {
      // what a process killed while making a backup (or a restore) left in DATA_DIR; a backup
      // asked for meanwhile is made first, so the start does not wait for it
      if (service.available)
        cleaning = service
          .removeLeftovers()
          .catch((e: unknown) =>
            ctx.log.warn({ err: e }, 'backup: could not remove what an earlier process left'),
          );
    },
    stop: async () => {
      await Promise.all([service.stop(), cleaning]);
    },
    jobs: daily ? [daily] : [],
  };
}
