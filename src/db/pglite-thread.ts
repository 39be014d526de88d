import { Worker } from 'node:worker_threads';
import { within } from '../shared/deadline.js';
import { DatabaseUnavailable } from './errors.js';

export interface PgliteThreadOptions {
  /** Folder of the database files; undefined keeps it in memory. */
  dataDir?: string;
  startParams: string[];
  initdbParams: string[];
  /** The folder is new (initdb runs first). */
  fresh: boolean;
  /** PostgreSQL's fsync reaches the disk (the worker gives PGlite's file system one). */
  fsync: boolean;
  /** A tar of a database folder (PGlite's dumpDataDir) that an in-memory database starts as. */
  template?: string;
}

export interface QueryResult<R> {
  rows: R[];
  affectedRows?: number;
}

/** A database error from the worker: the message and PostgreSQL's fields (`code` above all). */
export class EmbeddedDatabaseError extends Error {
  code?: string;
  detail?: string;
  constraint?: string;
}

type Reply =
  | { id: number; result: unknown; error?: undefined }
  | { id: number; error: Record<string, string> }
  | { channel: string; payload: string }
  | { ready: true }
  | { failed: Record<string, string> }
  | { broken: Record<string, string> };

function toError(fields: Record<string, string>): EmbeddedDatabaseError {
  return Object.assign(new EmbeddedDatabaseError(fields.message), fields);
}

/**
 * PGlite on a worker thread (pglite-worker.mjs), with the part of PGlite's interface the query
 * layer uses: query, exec, listen, close. A query costs a round trip between threads (about
 * 0.1 ms here) and in exchange never blocks the event loop: a year's costs or a ledger rebuild
 * runs while the server goes on answering and streaming.
 */
export class PgliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private nextId = 0;
  private stopped: Error | null = null;
  private closing = false;
  closed = false;
  /** The database opened (it may have closed since). */
  opened = false;

  /** Settles once the database is open (made first when the folder is new); queries made before wait. */
  readonly ready: Promise<void>;
  private onReady: (failure: Error | null) => void = () => {};

  /**
   * Settles when the open database stops answering in step without being closed: a statement
   * broke PGlite's exchange with Postgres, or the thread ended. Every call is refused from then
   * on (DatabaseUnavailable) and the thread is ended; only a new one, opened from the files,
   * answers again.
   */
  readonly broken: Promise<DatabaseUnavailable>;
  private onBroken: (e: DatabaseUnavailable) => void = () => {};

  private constructor(worker: Worker) {
    this.worker = worker;
    this.broken = new Promise((resolve) => (this.onBroken = resolve));
    this.ready = new Promise((resolve, reject) => {
      this.onReady = (failure) => {
        this.onReady = () => {};
        this.opened = !failure;
        if (!failure) return resolve();
        this.fail(failure);
        reject(failure);
        void worker.terminate();
      };
    });
    // a caller that never awaits `ready` learns of a failure from its first query
    this.ready.catch(() => {});
    worker.on('message', (m: Reply) => this.onMessage(m));
    worker.on('error', (e) => this.breakOff(e));
    worker.on('exit', (code) => this.breakOff(new Error(`the embedded database's thread exited (${code})`)));
  }

  /** Starts the thread, which opens the database while the caller goes on. */
  static start(opts: PgliteThreadOptions): PgliteThread {
    return new PgliteThread(
      new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
        workerData: opts,
        // the thread's objects are short-lived messages and rows; 16 MB semi-spaces (V8's default)
        // only hold their garbage longer, as resident memory
        resourceLimits: { maxYoungGenerationSizeMb: 3 },
      }),
    );
  }

  private onMessage(m: Reply): void {
    if ('ready' in m) return this.onReady(null);
    if ('failed' in m) return this.onReady(toError(m.failed));
    if ('broken' in m) return this.breakOff(toError(m.broken));
    if ('channel' in m) {
      for (const handler of this.listeners.get(m.channel) ?? []) handler(m.payload);
      return;
    }
    const call = this.pending.get(m.id);
    if (!call) return;
    this.pending.delete(m.id);
    if (m.error) call.reject(toError(m.error));
    else call.resolve(m.result);
  }

  /** An open database that stops answering in step (not one that fails to open, or is being closed). */
  private breakOff(e: Error): void {
    if (!this.opened || this.closing || this.stopped) return this.fail(e);
    const unavailable = new DatabaseUnavailable(
      `the embedded database stopped answering in step and is closed: ${e.message}`,
      { cause: e },
    );
    this.fail(unavailable);
    this.onBroken(unavailable);
    void this.worker.terminate();
  }

  private fail(e: Error): void {
    this.stopped ??= e;
    this.closed = true;
    this.onReady(e);
    // a call cut off by close() learns that the database was closed, not that its thread ended
    for (const call of this.pending.values()) call.reject(this.stopped);
    this.pending.clear();
  }

  private call<T>(message: {
    op: string;
    sql?: string;
    params?: unknown[];
    channel?: string;
    to?: string;
    wal?: { from: string; to: string };
  }): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  query<R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<QueryResult<R>> {
    return this.call({ op: 'query', sql, params });
  }

  exec(sql: string): Promise<void> {
    return this.call({ op: 'exec', sql });
  }

  /** Probes the database with a statement whose answer is known: one that answers otherwise is broken. */
  check(): Promise<void> {
    return this.call({ op: 'check' });
  }

  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    const handlers = this.listeners.get(channel) ?? new Set();
    if (handlers.size === 0) await this.call({ op: 'listen', channel });
    handlers.add(handler);
    this.listeners.set(channel, handlers);
    return async () => {
      handlers.delete(handler);
      if (handlers.size === 0 && !this.stopped) await this.call({ op: 'unlisten', channel });
    };
  }

  /**
   * Copies the database's folder to `to` while no statement runs, keeping the log segments
   * `wal.from`..`wal.to` (file names) of pg_wal and no other.
   */
  copyDataDir(to: string, wal: { from: string; to: string }): Promise<void> {
    return this.call({ op: 'copy', to, wal });
  }

  /**
   * Closes the database (its files are then consistent) and ends the thread; safe to call twice.
   * Waits at most `withinMs` for the statement in progress and the close: then the thread is ended
   * as it stands, as a crash would end it (PostgreSQL's log replays at the next open), and the
   * answer is 'forced'.
   */
  async close(withinMs = Infinity): Promise<'closed' | 'forced'> {
    this.closing = true;
    if (this.closed) {
      // a broken thread has been told to end; its end is waited for
      await this.worker.terminate();
      return 'closed';
    }
    try {
      return (await within(this.call({ op: 'close' }), withinMs)) === 'done' ? 'closed' : 'forced';
    } finally {
      this.closed = true;
      this.stopped ??= new Error('the embedded database is closed');
      await this.worker.terminate();
    }
  }
}
