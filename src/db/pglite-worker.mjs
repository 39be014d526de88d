// @ts-check
// The embedded database on a thread of its own (opened by pglite-thread.ts). Plain JavaScript
// because a worker's entry is loaded by Node itself, from the sources in tests as from dist/.
// Its SQL runs here, so a long statement never stalls the HTTP server, and the database opens
// while the main thread loads the server.
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import fs, { constants, copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';

/** The same parsing as the server's pool (connect.ts): int8 → number, numeric and date → string. */
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMPTZ: 1184 };
const identity = (/** @type {string} */ v) => v;
const parsers = {
  [OID.INT8]: (/** @type {string} */ v) => Number(v),
  [OID.NUMERIC]: identity,
  [OID.DATE]: identity,
  [OID.TIMESTAMPTZ]: (/** @type {string} */ v) => new Date(v),
};

const ERROR_FIELDS = [
  'code',
  'detail',
  'hint',
  'position',
  'where',
  'schema',
  'table',
  'column',
  'constraint',
  'severity',
];

/** A database error as plain data: what callers read of it (the SQLSTATE code above all). */
function plainError(/** @type {unknown} */ e) {
  const error = e instanceof Error ? e : new Error(String(e));
  /** @type {Record<string, unknown>} */
  const out = { message: error.message };
  for (const k of ERROR_FIELDS)
    if (/** @type {any} */ (error)[k] !== undefined) out[k] = /** @type {any} */ (error)[k];
  return out;
}

/**
 * A new folder is made by a second WebAssembly instance (initdb) whose memory stays resident until
 * the next full collection, which may be minutes away on an idle service; one now costs milliseconds.
 */
function collectNow() {
  try {
    v8.setFlagsFromString('--expose-gc');
    /** @type {() => void} */ (vm.runInNewContext('gc'))();
  } catch {
    // without it the memory is returned at the next collection
  }
}

/**
 * V8 compiles a WebAssembly function with its optimizing tier once it has run about this many
 * bytes of code (1.8 million by default). Postgres's start runs many functions hot once and never
 * again; at ten times the default they stay on the baseline tier: the open took 200 ms and 330 ms
 * of CPU instead of 230–330 ms and 410–480 ms, and a repeated aggregate ran as fast after a few
 * runs (docs/operations.md, "Memory and start-up"). Set before the module is instantiated.
 */
v8.setFlagsFromString('--wasm-tiering-budget=20000000');

/**
 * PGlite's Node file system (Emscripten's NODEFS) has no fsync: PostgreSQL's fsync() arrives as
 * fd_sync, which does nothing for a stream without one, and fdatasync() is a no-op in Emscripten
 * altogether, so with fsync on or off no sync call reached the kernel (strace of a commit,
 * docs/operations.md). This NODEFS gets one: fsync(2) of the file, or of the directory, so that a
 * commit is on the disk when it returns; PostgreSQL flushes its WAL with wal_sync_method=fsync
 * (connect.ts). A failed fsync is PostgreSQL's error to handle, as on any disk.
 */
class SyncingNodeFS extends NodeFS {
  /** @override @param {any} pg @param {any} opts */
  async init(pg, opts) {
    const result = await super.init(pg, opts);
    const preRun = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [
      ...preRun,
      (/** @type {any} */ mod) => {
        const nodefs = mod.FS.filesystems.NODEFS;
        nodefs.stream_ops.fsync = (/** @type {any} */ stream) =>
          nodefs.tryFSOperation(() => {
            if (stream.nfd !== undefined) return void fs.fsyncSync(stream.nfd);
            const fd = fs.openSync(nodefs.realPath(stream.node), 'r');
            try {
              fs.fsyncSync(fd);
            } finally {
              fs.closeSync(fd);
            }
          }) ?? 0;
      },
    ];
    return result;
  }
}

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread');
// a callback below does not keep the narrowing of the imported binding
const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { dataDir, startParams, initdbParams, fresh, fsync, template } = workerData;

/** @type {PGlite | null} */
let db = null;
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();
/** Messages that arrive while the database opens wait for it. */
const opened = PGlite.create({
  ...(dataDir ? (fsync ? { fs: new SyncingNodeFS(dataDir) } : { dataDir }) : {}),
  // an in-memory database unpacked from a made one (PGlite's dumpDataDir): no initdb
  ...(template ? { loadDataDir: new Blob([fs.readFileSync(template)]) } : {}),
  startParams,
  initDbStartParams: initdbParams,
  parsers,
});

port.on('message', (/** @type {Message & { id: number }} */ m) => {
  void handle(m).then(
    (result) => port.postMessage({ id: m.id, result }),
    (e) => port.postMessage({ id: m.id, error: plainError(e) }),
  );
});

/** @typedef {{ op: string, sql?: string, params?: unknown[], channel?: string, to?: string, wal?: { from: string, to: string } }} Message */

/**
 * Set once PGlite answered out of step; nothing is sent to it again. PGlite parses Postgres's
 * answers in a callback that Postgres's C code calls while it sends them: an exception there
 * (its parser's "Invalid array length" for a statement of more than 32,767 parameters) unwinds
 * through that C code and leaves its send half done. From then on the backend runs statements,
 * writes included, and answers none: every query "succeeds" with no rows. Only a new instance,
 * opened from the files, answers again (docs/operations.md, "Statements and their size").
 */
/** @type {Error | null} */
let broken = null;

/** A database error: Postgres's own answer, with its SQLSTATE. */
function isDatabaseError(/** @type {unknown} */ e) {
  const code = /** @type {{ code?: unknown }} */ (e)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** Whether Postgres answers a probe as it should: its row, or an error of its own (an aborted transaction's). */
async function inStep(/** @type {PGlite} */ pg) {
  try {
    const r = await pg.query('select 1 as in_step');
    return r.rows.length === 1 && /** @type {{ in_step?: unknown }} */ (r.rows[0]).in_step === 1;
  } catch (e) {
    return isDatabaseError(e);
  }
}

/** Marks the database broken and tells the main thread, which ends this thread. */
function breakOff(/** @type {unknown} */ cause) {
  const reason = cause instanceof Error ? cause.message : String(cause);
  broken ??= new Error(`the embedded database answered out of step (${reason})`);
  port.postMessage({ broken: plainError(broken) });
}

async function handle(/** @type {Message} */ m) {
  if (broken) throw broken;
  const pg = db ?? (await opened);
  if (m.op === 'check') {
    if (!(await inStep(pg))) breakOff('a probe of one row answered otherwise');
    if (broken) throw broken;
    return null;
  }
  try {
    return await run(pg, m);
  } catch (e) {
    // an error that is not Postgres's own answer may have cut PGlite's exchange short: probe it
    if ((m.op === 'query' || m.op === 'exec') && !isDatabaseError(e) && !pg.closed && !(await inStep(pg)))
      breakOff(e);
    throw e;
  }
}

async function run(/** @type {PGlite} */ pg, /** @type {Message} */ m) {
  switch (m.op) {
    case 'query': {
      const r = await pg.query(m.sql ?? '', m.params ?? []);
      return { rows: r.rows, affectedRows: r.affectedRows };
    }
    case 'exec':
      await pg.exec(m.sql ?? '');
      return null;
    case 'listen': {
      const channel = m.channel ?? '';
      if (!listening.has(channel))
        listening.set(channel, await pg.listen(channel, (payload) => port.postMessage({ channel, payload })));
      return null;
    }
    case 'unlisten': {
      const stop = listening.get(m.channel ?? '');
      listening.delete(m.channel ?? '');
      await stop?.();
      return null;
    }
    case 'copy': {
      if (!dataDir) throw new Error('the database is in memory: it has no folder to copy');
      const { to = '', wal = { from: '', to: '' } } = m;
      // Inside PGlite's own lock no statement is half done, and the copy is synchronous, so no
      // statement runs while the files are read.
      await pg.runExclusive(async () => copyFolder(dataDir, to, wal));
      return null;
    }
    case 'close':
      if (!pg.closed) await pg.close();
      return null;
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

/** A write-ahead log segment's file name: timeline, log and segment, 8 hex digits each. */
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/**
 * The database's files as they are now, less what a start does not read: the log segments
 * outside [wal.from, wal.to] (before the last checkpoint's redo point, or made ahead of use with
 * old contents) and the running server's pid files. Copies share blocks where the file system
 * can (reflinks), so the copy costs little room and time.
 */
function copyFolder(
  /** @type {string} */ from,
  /** @type {string} */ to,
  /** @type {{ from: string, to: string }} */ wal,
) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyFolder(source, target, wal);
    else if (entry.isFile()) {
      if (entry.name === 'postmaster.pid' || entry.name === 'postmaster.opts') continue;
      if (path.basename(from) === 'pg_wal' && WAL_SEGMENT.test(entry.name))
        if (entry.name < wal.from || entry.name > wal.to) continue;
      copyFileSync(source, target, constants.COPYFILE_FICLONE);
    }
  }
}

try {
  db = await opened;
  // the initdb instance is let go only after the current turn of the event loop
  if (fresh) await new Promise((resolve) => setImmediate(resolve)).then(collectNow);
  port.postMessage({ ready: true });
} catch (e) {
  port.postMessage({ failed: plainError(e) });
}
