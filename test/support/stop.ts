import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAllFakes, type AllFakes } from '../fakes/all.js';
import { freePort, runSatwatt, waitForHttp, type Proc } from './process.js';

/** The whole stop must end within this, whatever the service is doing (docs/operations.md). */
export const STOP_LIMIT_MS = 5_000;

export const API_TOKEN = 'stop-test-token-0123456789';

export interface Running {
  proc: Proc;
  fakes: AllFakes;
  base: string;
  dataDir: string;
  /** Sends the signal and answers the exit code and how long the process took to end. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
  /** Ends what is left (the process if a stop failed, the fakes, the data folder). */
  cleanup(): Promise<void>;
}

/**
 * The compiled service as `npm start` runs it, every feed on against the fakes of every provider,
 * on a new data folder (or `dataDir`). `ready` false returns at once, while it is still starting.
 */
export async function startEverything(
  opts: { env?: Record<string, string>; ready?: boolean; dataDir?: string; fakes?: AllFakes } = {},
): Promise<Running> {
  const fakes = opts.fakes ?? (await startAllFakes({ now: new Date(), feeds: true }));
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'satwatt-stop-')));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = runSatwatt(
    ['serve'],
    {
      ...fakes.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      API_TOKEN,
      LOG_FORMAT: 'json',
      ...opts.env,
    },
    { compiled: true },
  );
  if (opts.ready !== false)
    await waitForHttp(`${base}/health`, 60_000).catch((e: unknown) => {
      proc.child.kill('SIGKILL');
      throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
    });
  return {
    proc,
    fakes,
    base,
    dataDir,
    stop: async (signal = 'SIGTERM') => {
      const started = performance.now();
      proc.child.kill(signal);
      const code = await Promise.race([
        proc.exited,
        new Promise<'late'>((r) => setTimeout(r, 15_000, 'late')),
      ]);
      const ms = performance.now() - started;
      if (code === 'late') proc.child.kill('SIGKILL');
      return { code: code === 'late' ? null : code, ms };
    },
    cleanup: async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
      await fakes.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds, failing with the process's output after `ms`. */
export async function until(
  running: Running,
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (running.proc.child.exitCode !== null)
      throw new Error(`exited while waiting for ${what}\n${running.proc.output()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${running.proc.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The lock file is taken as the database starts opening: the earliest moment of a start. */
export const lockTaken = (dataDir: string) => existsSync(path.join(dataDir, 'satwatt.lock'));
