import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { openDatabase } from '../src/db/connect.js';
import { createRuntime } from '../src/runtime.js';
import { kraken } from '../test/fakes/kraken-ws.js';
import { MemoryRates, RATES_0703 } from '../test/fakes/market-rates.js';
import { marketOnly } from '../test/support/services.js';
import { eventLoopMonitor, percentile, row, type Benchmark, type BenchRow, benchConfig } from './lib.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const now = () => performance.timeOrigin + performance.now();
export const MESSAGES = 40;
/** Every client comes from 127.0.0.1: the stream limits (per address 20 by default) are lifted. */
export const MANY_STREAMS = { STREAM_MAX_CLIENTS: '100000', STREAM_MAX_PER_ADDRESS: '100000' };
const GAP_MS = 200;
const SIZES = [1_000, 5_000];

/** WebSocket clients in a process of their own (stream-fanout-client.ts), driven over IPC. */
export class Clients {
  private readonly child: ChildProcess;
  constructor() {
    this.child = fork(path.join(HERE, 'stream-fanout-client.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  }
  ask<T>(msg: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      this.child.once('message', (m) => {
        if (m && typeof m === 'object' && 'error' in m) reject(new Error(String(m.error)));
        else resolve(m as T);
      });
      this.child.send(msg as object);
    });
  }
  kill() {
    this.child.kill();
  }
}

/**
 * Kraken's ticker for the spot feed: the subscription acknowledged with a BTC/EUR snapshot, a
 * heartbeat every second, and `tick(seq)` sends BTC/USD at 60,000 + seq (the clients read seq back).
 */
export async function krakenUpstream() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  let feed: WebSocket | null = null;
  server.on('connection', (s) => {
    feed = s;
    s.on('message', () => {
      s.send(JSON.stringify(kraken.ack('BTC/USD', 1)));
      s.send(JSON.stringify(kraken.ticker('snapshot', 'BTC/EUR', 55_000)));
    });
  });
  const heartbeat = setInterval(() => feed?.send(JSON.stringify(kraken.heartbeat())), 1_000);
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async connected() {
      while (!feed) await new Promise((r) => setTimeout(r, 20));
    },
    tick: (seq: number) => feed!.send(JSON.stringify(kraken.ticker('update', 'BTC/USD', 60_000 + seq))),
    close() {
      clearInterval(heartbeat);
      for (const c of server.clients) c.terminate();
      server.close();
    },
  };
}

export interface Round {
  p50: number;
  p99: number;
  delivered: number;
  loopP99: number;
}

/** Sends MESSAGES updates GAP_MS apart through `publish(seq)`, and measures arrival at N clients. */
export async function round(
  clients: Clients,
  url: string,
  n: number,
  publish: (seq: number) => void,
  firstSeq: number,
): Promise<Round> {
  await clients.ask({ cmd: 'connect', url, n });
  await new Promise((r) => setTimeout(r, 500));
  await clients.ask({ cmd: 'collect' });
  const sentAt = new Map<number, number>();
  const loop = eventLoopMonitor();
  for (let i = 0; i < MESSAGES; i++) {
    const seq = firstSeq + i;
    sentAt.set(seq, now());
    publish(seq);
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  await new Promise((r) => setTimeout(r, 500));
  const delay = loop.stop();
  const { seqs, times } = await clients.ask<{ seqs: number[]; times: number[] }>({ cmd: 'collect' });
  await clients.ask({ cmd: 'close' });
  const latencies: number[] = [];
  seqs.forEach((s, i) => {
    const t0 = sentAt.get(s);
    if (t0 !== undefined) latencies.push(times[i]! - t0);
  });
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    delivered: latencies.length / (n * MESSAGES),
    loopP99: delay.p99Ms,
  };
}

/**
 * The price stream end to end (a Kraken tick in, through the spot feed, the database row and the
 * fan-out, out to N WebSocket clients in another process) beside a bare `ws` broadcast of the same
 * messages; p50/p99 delivery latency and the serving process's event-loop delay.
 */
export const streamFanoutBench: Benchmark = {
  name: 'stream-fanout',
  async run() {
    const upstream = await krakenUpstream();
    const config = benchConfig({
      SERVICES: 'btc',
      SPOT_FEED_ENABLED: 'true',
      SPOT_FEED_URL: upstream.url,
      ...MANY_STREAMS,
    });
    const database = await openDatabase({ server: null });
    const rates = new MemoryRates(RATES_0703);
    const runtime = await createRuntime(config, {
      database,
      log: pino({ level: 'silent' }),
      services: marketOnly(rates),
    });
    const subjectUrl = (await runtime.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    await runtime.startFeeds();
    await upstream.connected();

    const bare = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    await new Promise((r) => bare.once('listening', r));
    const bareUrl = `ws://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const bareMessage = (seq: number) =>
      JSON.stringify({
        at: new Date().toISOString(),
        btc_usd: 60_000 + seq,
        btc_eur: 55_000,
        btc_dkk: 410_328.16,
        rates: { date: '2026-07-03', usd_eur: 0.923456, usd_dkk: 6.889123, eur_dkk: 7.460512 },
      });

    const clients = new Clients();
    const rows: BenchRow[] = [];
    let seq = 1;
    try {
      for (const n of SIZES) {
        const subject: Round[] = [];
        const baseline: Round[] = [];
        for (const order of [
          ['s', 'b'],
          ['b', 's'],
          ['s', 'b'],
          ['b', 's'],
        ]) {
          for (const which of order) {
            const first = seq;
            seq += MESSAGES;
            if (which === 's')
              subject.push(
                await round(clients, `${subjectUrl}/api/stream/price`, n, (s) => upstream.tick(s), first),
              );
            else
              baseline.push(
                await round(
                  clients,
                  bareUrl,
                  n,
                  (s) => {
                    const text = bareMessage(s);
                    for (const c of bare.clients) c.send(text);
                  },
                  first,
                ),
              );
          }
        }
        const avg = (xs: Round[], k: keyof Round) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
        const delivered = `delivered ${(avg(subject, 'delivered') * 100).toFixed(1)}% vs ${(avg(baseline, 'delivered') * 100).toFixed(1)}%`;
        const base = { baselineName: `bare ws broadcast, ${n} clients`, unit: 'ms' };
        rows.push(
          row({
            ...base,
            name: `price stream p50 latency, ${n} clients`,
            value: avg(subject, 'p50'),
            baseline: avg(baseline, 'p50'),
            note: delivered,
          }),
          row({
            ...base,
            name: `price stream p99 latency, ${n} clients`,
            value: avg(subject, 'p99'),
            baseline: avg(baseline, 'p99'),
            target: '≤ 1.5×',
          }),
          row({
            ...base,
            name: `service event-loop delay p99, ${n} clients`,
            value: avg(subject, 'loopP99'),
            baseline: avg(baseline, 'loopP99'),
          }),
        );
      }
      return rows;
    } finally {
      clients.kill();
      await runtime.stop();
      await database.close();
      for (const c of bare.clients) c.terminate();
      bare.close();
      upstream.close();
    }
  },
};
