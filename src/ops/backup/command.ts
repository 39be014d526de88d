import { existsSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Config } from '../../config.js';
import type { ConfigCommand } from '../../context.js';
import { openDatabase } from '../../db/connect.js';
import { dataDirHolder, DataDirLockedError, serviceAddressOf } from '../../db/data-dir-lock.js';
import { NewerDatabaseError } from '../../db/migrate.js';
import { findRunningService, RemoteError, sentTo, serviceUrl } from '../../remote/client.js';
import { commandArgs } from '../../shared/args.js';
import { systemClock } from '../../shared/clock.js';
import { restoreBackup, RestoreRefused } from './restore.js';
import { BackupService } from './service.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);
/** The one FILE a command names, or null (the parse error said first) when it names none or more. */
function oneFile(verb: string, args: string[]): string | null {
  const parsed = commandArgs(args, {});
  if (typeof parsed === 'string') err(`${verb}: ${parsed}`);
  const files = typeof parsed === 'string' ? [] : parsed.positionals;
  return files.length === 1 && files[0] ? files[0] : null;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** `backup FILE`: from the folder when no process holds it, else from the running service. */
export const backupCommand: ConfigCommand = {
  name: 'backup',
  usage:
    'backup FILE           a consistent backup of the embedded database (asks the running service if it holds it)',
  async runWithConfig(args, config) {
    const given = oneFile('backup', args);
    if (given === null) {
      err(
        'usage: backup FILE  (a .tar.gz to write; an existing one is replaced once the new one is complete)',
      );
      return 2;
    }
    const file = path.resolve(given);
    if ((await stat(file).catch(() => null))?.isDirectory()) {
      err(`backup: ${file} is a folder; name the .tar.gz file to write`);
      return 2;
    }
    if (!(await stat(path.dirname(file)).catch(() => null))?.isDirectory()) {
      err(`backup: ${path.dirname(file)} is not a folder to write ${path.basename(file)} in`);
      return 2;
    }
    if (config.database) {
      err(
        'backup: the database is a PostgreSQL server (DATABASE_URL); back it up with pg_dump (docs/operations.md, "Backups")',
      );
      return 2;
    }
    if (!existsSync(path.join(config.dataDir, 'pg', 'PG_VERSION'))) {
      err(`backup: ${config.dataDir} holds no database to back up`);
      return 2;
    }
    const started = performance.now();
    let database;
    try {
      database = await openDatabase({ server: null, dataDir: config.dataDir });
    } catch (e) {
      if (!(e instanceof DataDirLockedError)) throw e;
      return fromService(config, file, e.pid, started);
    }
    try {
      const service = new BackupService({ database, dataDir: config.dataDir, clock: systemClock });
      await service.removeLeftovers();
      const written = await service.writeFile(file).catch((e: unknown) => e as Error);
      if (written instanceof Error) {
        err(`backup: ${file} was not written: ${written.message}`);
        return 1;
      }
      const { bytes } = written;
      out(`backup ${file}: ${mb(bytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return 0;
    } finally {
      await database.close();
    }
  },
};

async function fromService(config: Config, file: string, pid: number, started: number): Promise<number> {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.partial-${process.pid}`);
  try {
    const service = await findRunningService('backup', config, pid);
    err(sentTo('backup', config.dataDir, pid, service.url));
    const res = await service.download('backup', '/api/backup');
    await pipeline(
      Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
      createWriteStream(partial, { flush: true }),
    );
    await rename(partial, file);
  } catch (e) {
    await rm(partial, { force: true });
    if (e instanceof RemoteError) {
      err(e.message);
      return e.exitCode;
    }
    // the service stopped or cut a stalled download off, or the disk is full: nothing is left under FILE
    err(`backup: ${file} was not written: ${(e as Error).message}`);
    return 1;
  }
  const { size } = await stat(file);
  out(`backup ${file}: ${mb(size)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

/** `restore FILE`: fills an empty DATA_DIR; a folder that holds a database is refused. */
export const restoreCommand: ConfigCommand = {
  name: 'restore',
  usage: 'restore FILE          fill an empty DATA_DIR from a backup, then start the service on it',
  async runWithConfig(args, config) {
    const given = oneFile('restore', args);
    if (given === null) {
      err('usage: restore FILE  (a backup written by `backup` or GET /api/backup)');
      return 2;
    }
    if (config.database) {
      err('restore: DATABASE_URL is set; a server is restored with pg_restore from its pg_dump');
      return 2;
    }
    // a folder in use is refused before anything is read, naming the service that serves from it
    const holder = await dataDirHolder(config.dataDir);
    if (holder !== null) {
      const address = await serviceAddressOf(config.dataDir, holder);
      const by = address ? `the satwatt at ${serviceUrl(address)} (process ${holder})` : `process ${holder}`;
      err(
        `restore: the database in ${config.dataDir} is held by ${by}; restore fills only an empty DATA_DIR ` +
          'that no process holds: stop it, move the folder away or set DATA_DIR to a new one, then restore',
      );
      return 2;
    }
    const started = performance.now();
    try {
      const manifest = await restoreBackup(path.resolve(given), config.dataDir);
      out(
        `restore ${given}: the backup of ${manifest.created_at} is now the database in ${config.dataDir} ` +
          `(${((performance.now() - started) / 1000).toFixed(1)} s); start the service as usual`,
      );
      return 0;
    } catch (e) {
      if (e instanceof RestoreRefused || e instanceof DataDirLockedError || e instanceof NewerDatabaseError) {
        err(`restore: ${e.message}`);
        return 2;
      }
      throw e;
    }
  },
};
