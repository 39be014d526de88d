import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { ensureBuilt } from '../../scripts/build.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every outbound feed off: for processes and apps that must not poll anything on their own. */
export const FEEDS_OFF: Record<string, string> = {
  SPOT_FEED_ENABLED: 'false',
  OHLC_FEED_ENABLED: 'false',
  QUOTE_FEED_ENABLED: 'false',
  RATES_FEED_ENABLED: 'false',
  PRICE_FEED_ENABLED: 'false',
  CO2_FEED_ENABLED: 'false',
  METERING_SYNC_ENABLED: 'false',
};

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export interface RunOptions {
  cwd?: string;
  /**
   * Run the compiled dist/ through scripts/start.mjs, exactly as `npm start` does (call
   * `ensureBuilt()` first so that a stale build is not rebuilt inside a timed wait). Without it the
   * sources run through tsx, as `npm run dev` does, so a test never runs an out-of-date build.
   */
  compiled?: boolean;
  /** Node's own options before the entry (as a service unit may give them). */
  nodeArgs?: string[];
}

/** Runs satwatt as a process with only the given environment on top of PATH. */
export function runSatwatt(args: string[], env: Record<string, string>, opts: RunOptions = {}): Proc {
  const entry = opts.compiled
    ? [path.join(ROOT, 'scripts/start.mjs')]
    : ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function waitForHttp(url: string, timeoutMs = 30_000, intervalMs = 100): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return res;
      last = res.status;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms: ${String(last)}`);
}
