import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp } from '../../../test/support/app.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../../test/support/db.js';
import { generateEvents, tableDigest } from '../../../test/support/ledger-events.js';
import { FEEDS_OFF, runSatwatt } from '../../../test/support/process.js';
import { parsePostgresUrl } from '../../config.js';
import { openDatabase, type Database } from '../../db/connect.js';
import { migrate } from '../../db/migrate.js';
import { ledgerOnly } from '../../../test/support/services.js';
import * as projections from './projections.js';

const KILLS = 4;
const CHILD_ENV = {
  SERVICES: 'btc',
  LOG_LEVEL: 'warn',
  ...FEEDS_OFF,
};

interface Backend {
  open(): Promise<Database>;
  /** Closes what the parent holds so the child may open it (the embedded database is one process's). */
  release(db: Database): Promise<void>;
  env: Record<string, string>;
  events: number;
  cleanup(): Promise<void>;
}

async function pgliteBackend(): Promise<Backend> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'satwatt-ledger-kill-'));
  return {
    open: () => openDatabase({ server: null, dataDir: dir }),
    release: (db) => db.close(),
    env: { DATA_DIR: dir },
    events: 10_000,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

async function serverBackend(): Promise<Backend> {
  const fresh: TestDatabase = await freshDatabase({ migrated: false });
  await fresh.database.close();
  const url = fresh.url!;
  return {
    open: () => openDatabase({ server: parsePostgresUrl(url), poolSize: 5 }),
    release: (db) => db.close(),
    env: { DATABASE_URL: url },
    events: 100_000,
    cleanup: () => fresh.close().catch(() => {}),
  };
}

async function rebuildHere(database: Database): Promise<number> {
  const started = performance.now();
  for (const table of ['deposits', 'buys'] as const)
    await database.db.transaction().execute(async (trx) => {
      await projections.lockForRebuild(trx, table);
      await projections.deleteAllRows(trx, table);
      await projections.insertAllRows(trx, table);
    });
  return (performance.now() - started) / 2;
}

const digests = async (db: Database) => ({
  deposits: await tableDigest(db, 'deposits'),
  buys: await tableDigest(db, 'buys'),
});

/** A few events through the API, so each round's tables differ and are kept incrementally. */
async function writeSomeEvents(database: Database, round: number) {
  const app = await startTestApp({
    db: { database, url: null, close: async () => {} },
    services: ledgerOnly(fakeRates()),
  });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await app.call('POST', '/api/events', {
        type: i === 0 ? 'bank_to_exchange' : 'exchange_to_wallet',
        occurred_at: `2026-03-0${round + 1}`,
        ...(i === 0 ? { wallet: 1 } : { from_wallet: 2, to_wallet: 5, sats: 777 + i, fee_sats: 3 }),
        amount: `${round}.${i}5`,
        currency: 'DKK',
      });
      expect(res.statusCode).toBe(201);
    }
  } finally {
    await app.close();
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

describe.each([
  ['PGlite in a DATA_DIR', pgliteBackend, true],
  ['the PostgreSQL server', serverBackend, TEST_DATABASE_URL !== null],
] as const)('a rebuild killed with SIGKILL on %s', (_name, makeBackend, enabled) => {
  it.runIf(enabled)(
    'leaves read tables equal to a fresh rebuild, every time',
    async () => {
      const backend = await makeBackend();
      cleanups.push(backend.cleanup);
      let db = await backend.open();
      await migrate(db);
      await generateEvents(db, backend.events);
      const oneTableMs = await rebuildHere(db);
      let landedMidRebuild = 0;
      for (let round = 0; round < KILLS; round++) {
        await writeSomeEvents(db, round);
        const before = await digests(db);
        await backend.release(db);
        const child = runSatwatt(['ledger-rebuild', 'all', '--times', '1000'], {
          ...backend.env,
          ...CHILD_ENV,
        });
        while (!child.output().includes('rebuilding')) {
          if (child.child.exitCode !== null) throw new Error(`the child exited early:\n${child.output()}`);
          await new Promise((r) => setTimeout(r, 5));
        }
        await new Promise((r) => setTimeout(r, Math.random() * 1.5 * oneTableMs));
        child.child.kill('SIGKILL');
        await child.exited;
        const lines = child.output().trim().split('\n');
        if (lines[lines.length - 1]?.startsWith('rebuilding')) landedMidRebuild++;

        db = await backend.open();
        const afterKill = await digests(db);
        await rebuildHere(db);
        expect(afterKill).toEqual(await digests(db));
        expect(afterKill).toEqual(before);
      }
      await backend.release(db);
      // Each kill comes at a random moment; most must land inside a rebuild for the test to mean anything.
      expect(landedMidRebuild).toBeGreaterThan(0);
    },
    300_000,
  );
});
