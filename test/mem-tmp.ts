import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAllFakes } from './fakes/all.js';
import { freePort, ROOT } from './support/process.js';
const feeds = process.env.FEEDS !== 'off';
const fakes = await startAllFakes({ now: new Date(), feeds });
const dataDir = process.env.DIR ?? (await mkdtemp(path.join(tmpdir(), 'satwatt-mem-')));
const port = await freePort();
const child = spawn(process.execPath, ['--import', '/tmp/ops-stop/mem-preload.mjs', ...(process.env.NODEARGS ? process.env.NODEARGS.split(' ') : []), path.join(ROOT, 'dist/main.js'), 'serve'], {
  env: { PATH: process.env.PATH, ...fakes.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}) },
  stdio: ['ignore', 'inherit', 'inherit'],
});
await new Promise((r) => setTimeout(r, Number(process.env.MS ?? 20000)));
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
await fakes.close();
console.log('dir', dataDir);
