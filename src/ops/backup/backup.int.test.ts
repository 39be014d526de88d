import { sql } from 'kysely';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btcService } from '../../btc/index.js';
import type { Services } from '../../services.js';
import { NewerDatabaseError } from '../../db/migrate.js';
import { powerService } from '../../power/index.js';
import { createRuntime, type Runtime } from '../../runtime.js';
import { fixedClock } from '../../shared/clock.js';
import { fakeRates } from '../../../test/fakes/rates.js';
import { testConfig } from '../../../test/support/app.js';
import { freshDatabase, TEST_DATABASE_URL } from '../../../test/support/db.js';
import { generateEvents } from '../../../test/support/ledger-events.js';
import { seedYear } from '../../../bench/costs.bench.js';
import { restoreBackup, RestoreRefused } from './restore.js';

const clock = fixedClock('2026-07-03T10:00:00Z');
const rates = fakeRates();
const services: Partial<Services> = {
  btc: (ctx) => btcService(ctx, { rates, only: ['ledger', 'portfolio'] }),
  power: (ctx) => powerService(ctx),
};

/** The service on the embedded database in `dataDir` (a server under TEST_DATABASE_URL has nothing to copy). */
async function open(dataDir: string): Promise<Runtime> {
  const runtime = await createRuntime(testConfig({ DATA_DIR: dataDir }), {
    clock,
    log: pino({ level: 'silent' }),
    services,
  });
  await runtime.app.ready();
  return runtime;
}

const get = async (runtime: Runtime, url: string) => {
  const res = await runtime.app.inject({ method: 'GET', url });
  expect(res.statusCode, url).toBe(200);
  return res.body;
};

const ANSWERS = [
  '/api/wallets',
  '/api/events?limit=500',
  '/api/events?format=csv',
  '/api/deposits?limit=500',
  '/api/buys?format=csv',
  '/api/deposits/totals',
  '/api/portfolio?at=2026-06-30',
  '/api/elprice?date=2026-03-29',
  '/api/costs?from=2026-01-01&to=2026-06-30',
  '/api/consumption?date=2026-10-25',
  '/api/solar?date=2026-06-21',
];

const tmp = () => mkdtemp(path.join(tmpdir(), 'satwatt-backup-'));

async function backupFile(runtime: Runtime, dir: string): Promise<string> {
  const res = await runtime.app.inject({ method: 'GET', url: '/api/backup' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/gzip');
  expect(res.headers['content-disposition']).toBe('attachment; filename="satwatt-20260703T100000Z.tar.gz"');
  const file = path.join(dir, 'backup.tar.gz');
  await writeFile(file, res.rawPayload);
  return file;
}

let original: Runtime;
let originalDir: string;
beforeAll(async () => {
  originalDir = await tmp();
  original = await open(originalDir);
  const db = original.ctx.database.db;
  await seedYear(db);
  await generateEvents(original.ctx.database, 3000, '2025-01-01');
  await original.app.inject({ method: 'POST', url: '/api/deposits/rebuild' });
  await original.app.inject({ method: 'POST', url: '/api/buys/rebuild' });
}, 120_000);
afterAll(async () => {
  await original?.stop();
});

describe('backup and restore of the embedded database', () => {
  it('restores a backup that gives the same answers as the original', async () => {
    const file = await backupFile(original, await tmp());
    const restoredDir = await tmp();
    const manifest = await restoreBackup(file, restoredDir);
    expect(manifest).toMatchObject({ format: 'satwatt-backup', created_at: '2026-07-03T10:00:00.000Z' });
    const restored = await open(restoredDir);
    try {
      for (const url of ANSWERS) expect(await get(restored, url), url).toBe(await get(original, url));
      expect(JSON.parse(await get(restored, '/api/events?limit=500')).items).toHaveLength(500);
    } finally {
      await restored.stop();
    }
    // the copy made for the backup is gone once it was sent
    expect((await readdir(originalDir)).filter((n) => n.startsWith('.snapshot-'))).toEqual([]);
  }, 120_000);

  it('takes a consistent state while events are being written: balances match the events in the copy', async () => {
    const { ctx } = original;
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        // one event and its balance change in one transaction, as the ledger writes them
        await ctx.database.db.transaction().execute(async (trx) => {
          await sql`insert into btc.events (type, occurred_at, from_wallet, to_wallet, sats, fee_sats)
                    values ('wallet_to_wallet', '2026-06-01', 4, 5, 1, 0)`.execute(trx);
          await sql`update btc.wallets set balance = balance - 1 where id = 4`.execute(trx);
          await sql`update btc.wallets set balance = balance + 1 where id = 5`.execute(trx);
        });
        written++;
      }
    })();
    const file = await backupFile(original, await tmp());
    writing = false;
    await writer;
    const restoredDir = await tmp();
    await restoreBackup(file, restoredDir);
    const restored = await open(restoredDir);
    try {
      const r = await sql<{ mismatched: number; transfers: number }>`
        select
          (select count(*)::int from btc.wallets w where w.balance <> coalesce((
            select sum(x.delta) from (
              select to_wallet as id, sats as delta from btc.events where type <> 'bank_to_exchange'
              union all
              select from_wallet, -(sats + fee_sats) from btc.events where type = 'wallet_to_wallet'
            ) x where x.id = w.id), 0)) as mismatched,
          (select count(*)::int from btc.events where occurred_at = '2026-06-01' and sats = 1) as transfers
      `.execute(restored.ctx.database.db);
      expect(r.rows[0]!.mismatched).toBe(0);
      expect(written).toBeGreaterThan(0);
      expect(r.rows[0]!.transfers).toBeLessThanOrEqual(written);
    } finally {
      await restored.stop();
    }
  }, 120_000);

  it('refuses a folder that holds a database, and a file that is not a backup, leaving both alone', async () => {
    const file = await backupFile(original, await tmp());
    await expect(restoreBackup(file, originalDir)).rejects.toThrow(
      new RestoreRefused(
        `${originalDir} already holds a database (${originalDir}/pg); restore fills only an empty DATA_DIR: ` +
          'move that folder away or set DATA_DIR to a new one, then restore again',
      ),
    );
    const notBackup = path.join(await tmp(), 'notes.tar.gz');
    await writeFile(notBackup, 'hello');
    const empty = await tmp();
    await expect(restoreBackup(notBackup, empty)).rejects.toThrow(
      /notes.tar.gz is not a complete satwatt backup/,
    );
    expect(await readdir(empty)).toEqual([]);
  }, 120_000);

  it('refuses a backup of a database that a newer satwatt migrated', async () => {
    const db = original.ctx.database.db;
    await sql`insert into public.satwatt_migrations (schema_name, version, name, checksum)
              values ('btc', 9999, '9999_from_the_future.sql', 'x')`.execute(db);
    try {
      const file = await backupFile(original, await tmp());
      const empty = await tmp();
      await expect(restoreBackup(file, empty)).rejects.toThrow(NewerDatabaseError);
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await sql`delete from public.satwatt_migrations where version = 9999`.execute(db);
    }
  }, 120_000);
});

describe('GET /api/backup without an embedded database in a folder', () => {
  it('answers 409 problem+json (GET and HEAD): pg_dump for a server, nothing to copy in memory', async () => {
    const t = await freshDatabase();
    const runtime = await createRuntime(testConfig(), {
      database: t.database,
      clock,
      log: pino({ level: 'silent' }),
      services,
    });
    try {
      const res = await runtime.app.inject({ method: 'GET', url: '/api/backup' });
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toMatch(TEST_DATABASE_URL ? /back it up with pg_dump/ : /in memory/);
      expect((await runtime.app.inject({ method: 'HEAD', url: '/api/backup' })).statusCode).toBe(409);
    } finally {
      await runtime.stop();
      await t.close();
    }
  });
});
