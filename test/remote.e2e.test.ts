import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connect.js';
import { addDays, danishDate } from '../src/shared/danish-time.js';
import { startAllFakes, type AllFakes } from './fakes/all.js';
import { freePort, ROOT, runSatwatt, waitForHttp, type Proc } from './support/process.js';

/**
 * A service runs on the embedded database; the commands run beside it, as a household would, and
 * find the folder in use: each sends its work to the service and shows the same result. Then a
 * backup through the service is restored into a new folder, a second service starts on it and
 * answers the same, and a start on a database that a newer version migrated is refused.
 */
const TOKEN = 'remote-e2e-token-0123456789';
let fakes: AllFakes;
let env: Record<string, string>;
let service: { proc: Proc; base: string };
const tmp = () => mkdtemp(path.join(tmpdir(), 'satwatt-remote-'));

async function serve(dataDir: string): Promise<{ proc: Proc; base: string }> {
  const port = await freePort();
  const proc = runSatwatt(['serve'], { ...env, DATA_DIR: dataDir, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, 90_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
  });
  return { proc, base };
}

async function stop(proc: Proc) {
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

/**
 * A command beside the service with DATA_DIR and the token alone: no PORT or HOST, while the
 * service listens on a port of its own, so the command finds it from the folder.
 */
async function cli(args: string[], dataDir: string) {
  const run = runSatwatt(args, { DATA_DIR: dataDir, API_TOKEN: TOKEN, LOG_LEVEL: 'error' });
  const code = await run.exited;
  return { code, output: run.output() };
}

const get = async (base: string, url: string) => {
  const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, url).toBe(200);
  return res.text();
};

let dataDir: string;
beforeAll(async () => {
  fakes = await startAllFakes({ now: new Date() });
  env = { ...fakes.env, API_TOKEN: TOKEN, LOG_LEVEL: 'error', PROVIDER_TIMEOUT_MS: '5000' };
  dataDir = await tmp();
  service = await serve(dataDir);
}, 120_000);
afterAll(async () => {
  if (service) await stop(service.proc);
  await fakes?.close();
});

describe('commands beside a running service', () => {
  it('ledger-rebuild is done by the service and prints the same lines', async () => {
    const r = await cli(['ledger-rebuild', 'all'], dataDir);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain(
      `ledger-rebuild: the database in ${dataDir} is held by the satwatt at ${service.base} ` +
        `(process ${service.proc.child.pid}); sending the work there`,
    );
    expect(r.output).toContain(
      'rebuilding deposits\nrebuilt deposits: 0 rows\nrebuilding buys\nrebuilt buys: 0 rows\n',
    );
  }, 120_000);

  it('backfill-prices is done by the service: the prices are stored and served', async () => {
    const r = await cli(['backfill-prices', '2026-01-01', '2026-01-31'], dataDir);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain(
      'backfill-prices 2026-01-01..2026-01-31: 5952 new price rows, 1488 new hourly rows',
    );
    expect(JSON.parse(await get(service.base, '/api/prices?date=2026-01-15&area=DK1'))).toMatchObject({
      complete: true,
      items: expect.toSatisfy((items: unknown[]) => items.length === 96),
    });
    const bad = await cli(['backfill-prices', '1990-01-01', '1990-01-02'], dataDir);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain(
      'backfill-prices: the running service answered 400: querystring.from: must be a day on or after 1999-07-01',
    );
  }, 120_000);

  it('import-solar sends each file to the service: a good one is stored, a bad one is refused by line', async () => {
    const badFile = path.join(await tmp(), 'bad.csv');
    await writeFile(badFile, 'timestamp,energy_kwh\n');
    const r = await cli(['import-solar', 'examples/solar-sample.csv', badFile], dataDir);
    expect(r.code, r.output).toBe(1);
    expect(r.output).toContain('examples/solar-sample.csv: 49 rows, 49 new, 0 already stored');
    expect(r.output).toContain(`${badFile}: nothing imported (1 bad row shown)`);
    const again = await cli(['import-solar', path.join(ROOT, 'examples/solar-sample.csv')], dataDir);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain('solar-sample.csv: 49 rows, 0 new, 49 already stored');
  }, 120_000);

  it('sync-month is done by the service, day by day', async () => {
    // last month: every day of it is past
    const firstOfThisMonth = `${danishDate(new Date()).slice(0, 7)}-01`;
    const month = addDays(firstOfThisMonth, -1).slice(0, 7);
    const r = await cli(['sync-month', month], dataDir);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(
      new RegExp(
        `sync-month ${month}: (\\d+) days; \\1 synced \\(\\d+ production and \\d+ consumption rows\\), 0 already synced, 0 no data to fetch, 0 failed`,
      ),
    );
  }, 240_000);

  it('says which token is wrong when API_TOKEN differs from the service’s', async () => {
    const run = runSatwatt(['ledger-rebuild'], { API_TOKEN: 'another-token-0123456789', DATA_DIR: dataDir });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain(
      'ledger-rebuild: the running service answered 401: the bearer token is not valid (API_TOKEN here must be the running service’s)',
    );
  }, 120_000);
});

describe('backup through the running service, restore, and a start on the restored folder', () => {
  let restoredDir: string;
  it('restores into an empty folder a backup the service sent, and the restored service answers the same', async () => {
    const file = path.join(await tmp(), 'satwatt.tar.gz');
    const b = await cli(['backup', file], dataDir);
    expect(b.code, b.output).toBe(0);
    expect(b.output).toContain(
      `backup: the database in ${dataDir} is held by the satwatt at ${service.base} (process ${service.proc.child.pid})`,
    );
    restoredDir = await tmp();
    const r = await cli(['restore', file], restoredDir);
    expect(r.code, r.output).toBe(0);
    const twice = await cli(['restore', file], restoredDir);
    expect(twice.code).toBe(2);
    expect(twice.output).toContain(`restore: ${restoredDir} already holds a database`);

    const restored = await serve(restoredDir);
    try {
      for (const url of [
        '/api/prices?date=2026-01-15&area=DK2',
        '/api/elprice?date=2026-01-31',
        '/api/solar?date=2025-06-21',
        '/api/wallets',
        '/api/consumer-prices?date=2026-01-20',
      ])
        expect(await get(restored.base, url), url).toBe(await get(service.base, url));
    } finally {
      await stop(restored.proc);
    }
  }, 240_000);

  it('refuses to start on a database a newer version migrated, with one line and a non-zero exit', async () => {
    const db = await openDatabase({ server: null, dataDir: restoredDir });
    await sql`insert into public.satwatt_migrations (schema_name, version, name, checksum)
              values ('power', 9999, '9999_from_the_future.sql', 'x')`.execute(db.db);
    await db.close();
    const run = runSatwatt(['serve'], { ...env, DATA_DIR: restoredDir, PORT: String(await freePort()) });
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(
      'error: the database was migrated by a newer satwatt (it has power/9999_from_the_future.sql, which this version does not); ' +
        'refusing to start so that nothing is damaged: run the newer version again, or restore a backup made by this one',
    );
  }, 120_000);
});
