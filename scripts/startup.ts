import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FEEDS_OFF, freePort, runSatwatt, waitForHttp } from '../test/support/process.js';

/**
 * `npm run startup`: time from spawning `satwatt serve` to a 200 from /health, on a fresh data
 * folder and on one that exists, and the resident memory once ready; the median of three runs.
 */
const QUIET = {
  ...FEEDS_OFF,
  LOG_LEVEL: 'warn',
};

async function once(dataDir: string): Promise<{ ms: number; rssMb: number }> {
  const port = await freePort();
  const started = performance.now();
  const proc = runSatwatt(['serve'], { ...QUIET, PORT: String(port), DATA_DIR: dataDir });
  await waitForHttp(`http://127.0.0.1:${port}/health`, 120_000);
  const ms = performance.now() - started;
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const rss = Number(/^process_resident_memory_bytes (\S+)/m.exec(metrics)?.[1]);
  proc.child.kill('SIGTERM');
  await proc.exited;
  return { ms, rssMb: rss / 1024 / 1024 };
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const fresh: { ms: number; rssMb: number }[] = [];
  const existing: { ms: number; rssMb: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-start-'));
    fresh.push(await once(dir));
    existing.push(await once(dir));
  }
  const line = (name: string, runs: { ms: number; rssMb: number }[]) =>
    console.log(
      `${name}: ready in ${median(runs.map((r) => r.ms)).toFixed(0)} ms (runs ${runs.map((r) => r.ms.toFixed(0)).join(', ')}), rss ${median(runs.map((r) => r.rssMb)).toFixed(0)} MB`,
    );
  line('fresh data folder   ', fresh);
  line('existing data folder', existing);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
