// @ts-check
// The embedded database on a thread of its own (opened by pglite-thread.ts). Plain JavaScript
// because a worker's entry is loaded by Node itself, from the sources in tests as from dist/.
// Its SQL runs here, so a long statement never stalls the HTTP server, and the database opens
// while the main thread loads the server.
import { PGlite } from '@electric-sql/pglite';
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

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread');
// a callback below does not keep the narrowing of the imported binding
const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { dataDir, startParams, initdbParams, fresh } = workerData;

/** @type {PGlite | null} */
let db = null;
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();
/** Messages that arrive while the database opens wait for it. */
const opened = PGlite.create({
  ...(dataDir ? { dataDir } : {}),
  startParams,
  initDbStartParams: initdbParams,
  parsers,
});

port.on(
  'message',
  (/** @type {{ id: number, op: string, sql?: string, params?: unknown[], channel?: string }} */ m) => {
    void handle(m).then(
      (result) => port.postMessage({ id: m.id, result }),
      (e) => port.postMessage({ id: m.id, error: plainError(e) }),
    );
  },
);

async function handle(/** @type {{ op: string, sql?: string, params?: unknown[], channel?: string }} */ m) {
  const pg = db ?? (await opened);
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
    case 'close':
      if (!pg.closed) await pg.close();
      return null;
    default:
      throw new Error(`unknown operation ${m.op}`);
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
