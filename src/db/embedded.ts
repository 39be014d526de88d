import type { PGlite } from '@electric-sql/pglite';
import type { Kysely } from 'kysely';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { within } from '../shared/deadline.js';
import { checkParameters } from './chunks.js';
import type { Database, DatabaseChange, ScriptSession } from './connect.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { DatabaseUnavailable } from './errors.js';
import type { NotificationHandler } from './listener.js';
import { PgliteThread, type PgliteThreadOptions } from './pglite-thread.js';
import type { DB } from './schema.js';

/**
 * PGlite's start parameters (they replace its defaults, which are repeated first, but `-F`). Each
 * tuning setting is listed with its measured effect in docs/operations.md ("Memory and start-up").
 */
export const PGLITE_START_PARAMS: string[] = [
  // PGlite 0.4's defaults, without -F (fsync off): see pgliteStartParams
  ...['--single', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false'],
  ...['-c', 'log_checkpoints=false', '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0'],
  ...['-c', 'max_parallel_workers_per_gather=0'],
  // 128MB by default, all of it touched at start: about 100 MB resident. 16MB saved 17 MB more
  // but halved the ratio of a single client's POST /api/events on a 1,000,000-event ledger.
  '-c',
  'shared_buffers=32MB',
];

/**
 * The start parameters for a data folder whose commits reach the disk (`fsync`), or not: PGlite's
 * default `-F`, and an in-memory database, which has no disk. Emscripten makes fdatasync() a
 * no-op, so the WAL is flushed with fsync(), which the worker's file system passes to the disk.
 */
export function pgliteStartParams(fsync: boolean): string[] {
  return fsync ? [...PGLITE_START_PARAMS, '-c', 'wal_sync_method=fsync'] : [...PGLITE_START_PARAMS, '-F'];
}

/** initdb's settings for a new folder: written to its postgresql.conf, and used by initdb itself. */
export const PGLITE_INITDB_PARAMS: string[] = ['--set', 'shared_buffers=32MB'];

export interface EmbeddedOptions {
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  fsync: boolean;
  /** A tar of a database folder (PGlite's dumpDataDir) that an in-memory database starts as, instead of a new one. */
  template?: string;
  /** Starts each of the database's threads (tests keep a hand on them). */
  startThread?: (opts: PgliteThreadOptions) => PgliteThread;
}

/**
 * The embedded database: PGlite on a thread of its own, behind Kysely and the script session.
 * A thread that stops answering in step (PgliteThread.broken) is never sent another statement:
 * every one is refused (503) while a new thread opens the same folder, as PostgreSQL recovers
 * after a crash, with the log replayed; Kysely's only connection is held meanwhile, so no
 * transaction spans the two. An in-memory database, or a folder that does not open again, fails
 * for good (`watchState`: the service then ends, for its service manager to start it again).
 */
export async function startEmbedded(opts: EmbeddedOptions): Promise<Database> {
  const { dataDir, startThread = (o) => PgliteThread.start(o) } = opts;
  const releaseLock = dataDir ? await acquireDataDirLock(dataDir) : async () => {};
  const synced = opts.fsync && dataDir !== undefined;
  const pgDir = dataDir ? path.join(dataDir, 'pg') : undefined;
  const fresh = pgDir !== undefined && !existsSync(path.join(pgDir, 'PG_VERSION'));
  const threadOptions = (isNew: boolean): PgliteThreadOptions => ({
    ...(pgDir ? { dataDir: pgDir } : {}),
    startParams: pgliteStartParams(synced),
    fsync: synced,
    initdbParams: PGLITE_INITDB_PARAMS,
    fresh: isNew,
    ...(opts.template && !pgDir ? { template: opts.template } : {}),
  });
  const first = startThread(threadOptions(fresh));
  let thread = first;
  /** Why statements are refused now; null while the database answers. */
  let unavailable: Error | null = null;
  let failed = false;
  let closing = false;
  let reopening: Promise<void> | null = null;
  const watchers = new Set<(change: DatabaseChange) => void>();
  const tell = (change: DatabaseChange) => watchers.forEach((w) => w(change));

  const [{ Kysely }, { PGliteDialect }] = await Promise.all([
    import('kysely'),
    import('kysely-pglite-dialect'),
  ]);
  // The dialect uses only query() and close(); each statement goes to the thread of the moment.
  const client = {
    query: <R>(sql: string, params: unknown[] = []) => {
      checkParameters(params.length);
      return thread.query<R>(sql, params);
    },
    close: () => thread.close(),
  };
  const db: Kysely<DB> = new Kysely<DB>({ dialect: new PGliteDialect(client as unknown as PGlite) });
  const session: ScriptSession = {
    exec: (sql) => thread.exec(sql),
    query: async <R>(sql: string, params: unknown[] = []) => (await client.query<R>(sql, params)).rows,
  };

  // LISTEN is kept here, not on a thread, so that a reopened thread listens on the same channels.
  const channels = new Map<string, { handlers: Set<NotificationHandler>; stop: () => Promise<void> }>();
  const hear = (channel: string) => (payload: string) =>
    channels.get(channel)?.handlers.forEach((h) => h(payload));

  const fail = (e: Error) => {
    failed = true;
    unavailable = e;
    tell({ state: 'failed', error: e.message });
  };

  const reopen = async (broken: PgliteThread) => {
    const started = performance.now();
    await broken.close(0);
    const next = startThread(threadOptions(false));
    try {
      await next.ready;
    } catch (e) {
      await next.close(0);
      return fail(e instanceof Error ? e : new Error(String(e)));
    }
    if (closing) return void (await next.close(0));
    thread = next;
    watch(next);
    for (const [channel, entry] of channels) {
      entry.stop = await next.listen(channel, hear(channel));
      // notifications sent while the database was away are lost: each handler reads again
      entry.handlers.forEach((h) => h(undefined));
    }
    unavailable = null;
    tell({ state: 'reopened', ms: Math.round(performance.now() - started) });
  };

  const watch = (t: PgliteThread) =>
    void t.broken.then((e) => {
      if (closing || t !== thread || failed) return;
      unavailable = e;
      tell({ state: 'broken', error: e.message });
      // an in-memory database ends with its thread: there is nothing to open again
      if (!pgDir || !existsSync(path.join(pgDir, 'PG_VERSION'))) return fail(e);
      reopening = db
        .connection()
        .execute(() => reopen(t))
        .catch((err: unknown) => fail(err instanceof Error ? err : new Error(String(err))))
        .finally(() => (reopening = null));
    });
  watch(first);

  return {
    kind: 'pglite',
    db,
    ready: first.ready,
    // Holding Kysely's only connection keeps every other query out until the script is done.
    withSession: (fn) => db.connection().execute(() => fn(session)),
    listen: async (channel, onPayload) => {
      let entry = channels.get(channel);
      if (!entry) {
        entry = { handlers: new Set(), stop: await thread.listen(channel, hear(channel)) };
        channels.set(channel, entry);
      }
      entry.handlers.add(onPayload);
      return async () => {
        entry.handlers.delete(onPayload);
        if (entry.handlers.size > 0 || channels.get(channel) !== entry) return;
        channels.delete(channel);
        await entry.stop().catch(() => {});
      };
    },
    copyTo: dataDir
      ? (folder) =>
          db.connection().execute(async () => {
            // the checkpoint leaves little to replay, and only the log from its redo point on is needed
            await thread.exec('checkpoint');
            const { rows } = await thread.query<{ from: string; to: string }>(
              'select (pg_control_checkpoint()).redo_wal_file as "from", ' +
                'pg_walfile_name(pg_current_wal_insert_lsn()) as "to"',
            );
            await thread.copyDataDir(folder, rows[0]!);
          })
      : null,
    check: async () => {
      if (unavailable) throw new DatabaseUnavailable(unavailable.message);
      // through Kysely's connection, so that the probe never lands inside another's transaction
      await db.connection().execute(() => thread.check());
    },
    watchState: (watcher) => {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    watchNotifications: () => () => {},
    close: async ({ withinMs = Infinity } = {}) => {
      closing = true;
      const deadline = performance.now() + withinMs;
      if (reopening) await within(reopening, withinMs);
      const left = Math.max(0, deadline - performance.now());
      // a new folder still being made is not waited for: it is removed below and made at the next start
      const making = fresh && !first.opened && withinMs !== Infinity;
      const closed = await thread.close(making ? 0 : left);
      // a new folder cut off before it was made holds nothing: it is made anew at the next start
      if (closed === 'forced' && fresh && !first.opened && pgDir)
        await rm(pgDir, { recursive: true, force: true });
      await db.destroy();
      await releaseLock();
    },
  };
}
