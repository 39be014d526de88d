import { existsSync } from 'node:fs';
import { mkdtemp, readFile, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from './fakes/all.js';
import { dailyHistory, KRAKEN_HEADER, krakenLines } from './fakes/kraken-ledger.js';
import { FEEDS_OFF, freePort, runSatwatt, waitForHttp, type Proc } from './support/process.js';

/**
 * The commands find the service that holds DATA_DIR from the folder alone: the service records
 * where it listens (a port of its own here, never the default) once it serves. Each state: a
 * service serving, one that needs a token the command lacks, verbs that cannot run beside it
 * (restore, migrate), and an address left by a service that was killed (SIGKILL), with the folder
 * then free, held by a process that serves nothing, or served again on another port.
 */
const TOKEN = 'find-service-e2e-token-0123';
let fakes: AllFakes;
const tmp = () => mkdtemp(path.join(tmpdir(), 'satwatt-find-'));

async function serve(dataDir: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  const proc = runSatwatt(['serve'], {
    ...fakes.env,
    ...FEEDS_OFF,
    API_TOKEN: TOKEN,
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    PORT: String(port),
    ...extra,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, 90_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
  });
  return { proc, base, pid: proc.child.pid! };
}

async function stop(proc: Proc) {
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

/** A command with DATA_DIR and the token alone (no PORT, no HOST). */
async function cli(args: string[], dataDir: string, env: Record<string, string> = { API_TOKEN: TOKEN }) {
  const run = runSatwatt(args, { DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env });
  const code = await run.exited;
  return { code, output: run.output() };
}

const held = (dataDir: string, base: string, pid: number) =>
  `the database in ${dataDir} is held by the satwatt at ${base} (process ${pid})`;

beforeAll(async () => {
  fakes = await startAllFakes({ now: new Date() });
}, 60_000);
afterAll(() => fakes?.close());

describe('beside a serving satwatt, found from DATA_DIR', () => {
  let dir: string;
  let service: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    dir = await tmp();
    service = await serve(dir);
  }, 120_000);
  afterAll(async () => {
    if (service) await stop(service.proc);
  });

  it('import-ledger sends the file to the service: a dry run, the import, a file with a bad line', async () => {
    const file = path.join(await tmp(), 'kraken.csv');
    const steps = dailyHistory(3, Date.parse('2024-01-01T09:00:00Z'));
    await writeFile(file, `${[KRAKEN_HEADER, ...krakenLines(steps, 'fwd-')].join('\n')}\n`);
    const args = [file, '--source', 'kraken', '--exchange', '1', '--to-wallet', '4'];
    const dry = await cli(['import-ledger', ...args, '--dry-run'], dir);
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toContain(
      `import-ledger: ${held(dir, service.base, service.pid)}; sending the work there`,
    );
    expect(dry.output).toContain(
      `${file}: dry run: would create 6 events and 3 lots; 0 already stored; 3 lines skipped`,
    );
    const real = await cli(['import-ledger', ...args], dir);
    expect(real.code, real.output).toBe(0);
    expect(real.output).toContain(`${file}: created 6 events and 3 lots; 0 already stored; 3 lines skipped`);
    const wallet = await fetch(`${service.base}/api/wallets/4`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await wallet.json()) as { balance: number }).balance).toBe(98_000 + 99_000 + 100_000);

    const bad = path.join(path.dirname(file), 'bad.csv');
    const lines = krakenLines(steps, 'bad-').map((l, i) =>
      i === 2 ? l.replace('2024-01-01', '2024-01-32') : l,
    );
    await writeFile(bad, `${[KRAKEN_HEADER, ...lines].join('\n')}\n`);
    const refused = await cli(
      ['import-ledger', bad, '--source', 'kraken', '--exchange', '1', '--to-wallet', '4'],
      dir,
    );
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain(
      `${bad}:4: time: "2024-01-32 10:00:00" is not a UTC time YYYY-MM-DD HH:MM:SS`,
    );
    expect(refused.output).toContain(`${bad}: nothing imported (1 problem)`);
  }, 120_000);

  it('import-ledger refuses a file larger than the service takes at once, before sending it', async () => {
    const big = path.join(await tmp(), 'big.csv');
    await writeFile(big, '');
    await truncate(big, 32 * 1024 * 1024 + 1);
    const r = await cli(['import-ledger', big, '--source', 'csv'], dir);
    expect(r.code, r.output).toBe(2);
    expect(r.output).toContain(
      `import-ledger: ${big} is larger than 33554432 bytes, the most the running service takes at once`,
    );
  }, 60_000);

  it('says plainly that the service needs its API_TOKEN when the command has none, and sends nothing', async () => {
    const r = await cli(['ledger-rebuild'], dir, {});
    expect(r.code, r.output).toBe(2);
    expect(r.output.trim()).toBe(
      `ledger-rebuild: the satwatt at ${service.base} (process ${service.pid}) holds the database in ${dir} ` +
        'and needs its API_TOKEN: set the same API_TOKEN here (in the environment or .env)',
    );
  }, 60_000);

  it('restore and migrate refuse beside it, naming where it serves; the folder is untouched', async () => {
    const restore = await cli(['restore', path.join(dir, 'none.tar.gz')], dir);
    expect(restore.code, restore.output).toBe(2);
    expect(restore.output.trim()).toBe(
      `restore: ${held(dir, service.base, service.pid)}; restore fills only an empty DATA_DIR that no process ` +
        'holds: stop it, move the folder away or set DATA_DIR to a new one, then restore',
    );
    const migrate = await cli(['migrate'], dir);
    expect(migrate.code, migrate.output).toBe(2);
    expect(migrate.output.trim()).toBe(
      `migrate: ${held(dir, service.base, service.pid)}; the holder applies migrations (a satwatt, those it ` +
        'knows when it starts): restart it, or migrate once it has stopped',
    );
    expect((await fetch(`${service.base}/health`)).status).toBe(200);
  }, 60_000);
});

describe('an address left by a killed service', () => {
  let dir: string;
  let stale: string;
  let trap: Server;
  let trapped = 0;
  beforeAll(async () => {
    dir = await tmp();
    const killed = await serve(dir);
    killed.proc.child.kill('SIGKILL');
    await killed.proc.exited;
    stale = await readFile(path.join(dir, 'satwatt.address'), 'utf8');
    expect(JSON.parse(stale)).toMatchObject({
      pid: killed.pid,
      port: Number(new URL(killed.base).port),
      token: true,
    });
    // whatever answers at the dead service's port now must not be sent the work
    trap = createServer((_req, res) => {
      trapped++;
      res.end('{}');
    });
    await new Promise<void>((r) => trap.listen(Number(new URL(killed.base).port), '127.0.0.1', r));
  }, 120_000);
  afterAll(() => new Promise<void>((r) => trap.close(() => r())));

  it('a folder held by a live process that serves nothing: said plainly, and the stale port is not asked', async () => {
    // the lock names a live process (this test's) that never said where it listens
    await writeFile(path.join(dir, 'satwatt.lock'), String(process.pid));
    const r = await cli(['ledger-rebuild'], dir);
    expect(r.code, r.output).toBe(1);
    expect(r.output.trim()).toBe(
      `ledger-rebuild: the database in ${dir} is in use by process ${process.pid}, which serves no HTTP ` +
        '(another command, or a satwatt starting or stopping); try again once it has finished or is serving',
    );
    expect(trapped).toBe(0);
  }, 60_000);

  it('a folder no live process holds: the command takes it and runs on its own', async () => {
    await writeFile(path.join(dir, 'satwatt.lock'), '2147483646');
    await writeFile(path.join(dir, 'satwatt.address'), stale);
    const r = await cli(['ledger-rebuild', 'deposits'], dir);
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('sending the work');
    expect(r.output).toContain('rebuilt deposits: 0 rows');
    expect(trapped).toBe(0);
    expect(existsSync(path.join(dir, 'satwatt.address'))).toBe(false);
    expect(existsSync(path.join(dir, 'satwatt.lock'))).toBe(false);
  }, 60_000);

  it('served again on another port, in the open mode: a command with DATA_DIR alone goes there; the stopped service leaves no address', async () => {
    await writeFile(path.join(dir, 'satwatt.address'), stale);
    const again = await serve(dir, { API_TOKEN: '' });
    try {
      const r = await cli(['ledger-rebuild', 'buys'], dir, {});
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(
        `ledger-rebuild: ${held(dir, again.base, again.pid)}; sending the work there`,
      );
      expect(r.output).toContain('rebuilt buys: 0 rows');
      expect(trapped).toBe(0);
    } finally {
      await stop(again.proc);
    }
    expect(existsSync(path.join(dir, 'satwatt.address'))).toBe(false);
  }, 120_000);
});
