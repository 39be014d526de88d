import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { percentile } from '../bench/lib.js';
import { simulateYear } from './soak-year.js';
import { addDays, danishDate } from '../src/shared/danish-time.js';
import { startAllFakes, type AllFakes } from '../test/fakes/all.js';
import type { Fault } from '../test/fakes/http.js';
import { freePort, runSatwatt, waitForHttp } from '../test/support/process.js';

/**
 * `npm run soak -- --seconds 120`: the service as a process on loopback, its read endpoints and
 * streams kept busy while every fake provider goes through its fault modes in turn. Reports
 * requests, errors per endpoint, p99 and the service's memory at the start and at the end.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '90' },
    workers: { type: 'string', default: '16' },
    // `--simulate-days 365`: the year simulation of scripts/soak-year.ts instead
    'simulate-days': { type: 'string' },
    'quote-interval-s': { type: 'string', default: '60' },
    requests: { type: 'string', default: '300' },
  },
});
const SECONDS = Number(values.seconds);
const WORKERS = Number(values.workers);
const TOKEN = 'soak-token-0123456789abcdef';

interface Tally {
  n: number;
  byStatus: Map<number, number>;
  latencies: number[];
}

async function main() {
  const now = new Date();
  const fakes = await startAllFakes({ now, feeds: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'satwatt-soak-'));
  const service = runSatwatt(['serve'], {
    ...fakes.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    API_TOKEN: TOKEN,
    LOG_LEVEL: 'error',
    PROVIDER_TIMEOUT_MS: '1500',
  });
  try {
    await waitForHttp(`${base}/health`, 60_000);
    const today = danishDate(now);
    const endpoints = [
      '/health',
      '/',
      `/api/elprice?date=${today}`,
      `/api/prices?date=${today}&area=DK1`,
      `/api/currencies/${addDays(today, -1)}`,
      '/api/price/latest',
      '/api/quote/latest',
      '/api/exch-minute',
      '/api/exch-hour',
      '/api/wallets',
      '/api/events?limit=50',
      '/api/deposits/totals',
      `/api/production?date=${addDays(today, -3)}`,
      `/api/solar?date=${today}`,
    ];
    await warmUp(base, endpoints);
    const memStart = await memory(base);
    const streams = openStreams(port);
    const stop = Date.now() + SECONDS * 1000;
    // A live market: 20 ticks a second on each pair, so the streams have something to carry.
    let usd = 65_000;
    const ticker = setInterval(() => {
      usd += Math.round((Math.random() - 0.5) * 40);
      fakes.krakenWs.tick('BTC/USD', usd);
      fakes.krakenWs.tick('BTC/EUR', Math.round(usd * 0.92));
    }, 50);
    const samples: { at: number; rssMb: number; heapMb: number }[] = [];
    const sampler = setInterval(
      () => {
        void memory(base).then((m) =>
          samples.push({ at: Math.round((SECONDS * 1000 - (stop - Date.now())) / 1000), ...m }),
        );
      },
      Math.max(1000, (SECONDS * 1000) / 10),
    );
    const faults = cycleFaults(fakes, stop);
    const tallies = new Map<string, Tally>(
      endpoints.map((e) => [e, { n: 0, byStatus: new Map(), latencies: [] }]),
    );
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(base, endpoints, tallies, stop, w)));
    await faults;
    clearInterval(ticker);
    clearInterval(sampler);
    const memEnd = await memory(base);
    const received = streams.close();
    report(tallies, memStart, memEnd, received);
    console.log(
      `memory over the run (s: rss/heap MB): ${samples.map((m) => `${m.at}: ${m.rssMb.toFixed(0)}/${m.heapMb.toFixed(0)}`).join(', ')}`,
    );
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
    await fakes.close();
  }
}

async function warmUp(base: string, endpoints: string[]) {
  const deadline = Date.now() + 30_000;
  for (const e of endpoints) {
    while (Date.now() < deadline) {
      const res = await fetch(base + e, { headers: { authorization: `Bearer ${TOKEN}` } });
      await res.arrayBuffer();
      if (res.status < 500) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function worker(
  base: string,
  endpoints: string[],
  tallies: Map<string, Tally>,
  stop: number,
  offset: number,
) {
  for (let i = offset; Date.now() < stop; i++) {
    const e = endpoints[i % endpoints.length]!;
    const t = tallies.get(e)!;
    const started = performance.now();
    let status = 0;
    try {
      const res = await fetch(base + e, { headers: { authorization: `Bearer ${TOKEN}` } });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = -1;
    }
    t.n++;
    t.latencies.push(performance.now() - started);
    t.byStatus.set(status, (t.byStatus.get(status) ?? 0) + 1);
  }
}

/** Each provider in turn: failing with 503, hanging, answering garbage, dropping connections; then healed. */
async function cycleFaults(f: AllFakes, stop: number) {
  const http = f.http;
  const modes: Fault[] = [
    { kind: 'status', status: 503 },
    { kind: 'timeout' },
    { kind: 'malformed' },
    { kind: 'drop' },
    { kind: 'rate-limit', retryAfterSeconds: 2 },
  ];
  const step = Math.max(2000, Math.floor((stop - Date.now()) / (modes.length + 2)));
  for (const mode of modes) {
    if (Date.now() + step > stop) break;
    for (const s of http) s.failAlways(mode);
    if (mode.kind === 'drop') f.krakenWs.ws.dropAll();
    if (mode.kind === 'timeout') f.krakenWs.silent = true;
    process.stderr.write(`fault: ${mode.kind}\n`);
    await new Promise((r) => setTimeout(r, step));
    for (const s of http) s.heal();
    f.krakenWs.silent = false;
  }
  process.stderr.write('fault: none (healed)\n');
}

function openStreams(port: number) {
  let received = 0;
  const sockets: WebSocket[] = [];
  for (let i = 0; i < 50; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/stream/${i % 5 === 0 ? 'quote' : 'price'}`);
    ws.on('message', () => received++);
    ws.on('error', () => {});
    sockets.push(ws);
  }
  const sse = new AbortController();
  void fetch(`http://127.0.0.1:${port}/api/stream/price/sse`, { signal: sse.signal })
    .then(async (res) => {
      const reader = res.body?.getReader();
      while (reader && !(await reader.read()).done) received++;
    })
    .catch(() => {});
  return {
    close: () => {
      for (const s of sockets) s.terminate();
      sse.abort();
      return received;
    },
  };
}

async function memory(base: string): Promise<{ rssMb: number; heapMb: number }> {
  const text = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return { rssMb: read('process_resident_memory_bytes'), heapMb: read('nodejs_heap_size_used_bytes') };
}

function report(
  tallies: Map<string, Tally>,
  start: { rssMb: number; heapMb: number },
  end: typeof start,
  received: number,
) {
  const all = [...tallies.values()];
  const total = all.reduce((s, t) => s + t.n, 0);
  const lat = all.flatMap((t) => t.latencies).sort((a, b) => a - b);
  let serverErrors = 0;
  console.log(`\nsoak: ${SECONDS} s, ${WORKERS} workers, 50 WebSocket + 1 SSE stream clients\n`);
  console.log('| endpoint | requests | statuses | p99 ms |');
  console.log('|---|---|---|---|');
  for (const [e, t] of tallies) {
    const statuses = [...t.byStatus]
      .sort()
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    serverErrors += [...t.byStatus].filter(([s]) => s >= 500 || s < 0).reduce((s, [, n]) => s + n, 0);
    console.log(
      `| ${e} | ${t.n} | ${statuses} | ${percentile(
        t.latencies.sort((a, b) => a - b),
        99,
      ).toFixed(1)} |`,
    );
  }
  console.log(
    `\nrequests served: ${total} (${(total / SECONDS).toFixed(0)}/s), 5xx or failed: ${serverErrors}`,
  );
  console.log(`latency p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms`);
  console.log(`stream messages received: ${received}`);
  console.log(`memory at start: rss ${start.rssMb.toFixed(1)} MB, heap ${start.heapMb.toFixed(1)} MB`);
  console.log(`memory at end:   rss ${end.rssMb.toFixed(1)} MB, heap ${end.heapMb.toFixed(1)} MB`);
  process.exitCode = serverErrors > 0 ? 1 : 0;
}

const run =
  values['simulate-days'] !== undefined
    ? () =>
        simulateYear({
          days: Number(values['simulate-days']),
          quoteIntervalS: Number(values['quote-interval-s']),
          requests: Number(values.requests),
        })
    : main;

run().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
