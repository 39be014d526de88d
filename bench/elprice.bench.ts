import Fastify from 'fastify';
import http from 'node:http';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import type { Feature } from '../src/context.js';
import { powerService } from '../src/power/index.js';
import { plus, powerOnly } from '../test/support/services.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { FakeEnergiDataService } from '../test/fakes/energidataservice.js';
import { compareHttp, percentile, row, type Benchmark, benchConfig } from './lib.js';

const DATE = '2025-10-26';

/** Latencies in ms (sub-millisecond, from hrtime) of `total` GETs over `concurrency` keep-alive sockets. */
async function hrtimeLatencies(url: string, total: number, concurrency: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const out: number[] = [];
  let left = total;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const started = process.hrtime.bigint();
      http
        .get(url, { agent }, (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            out.push(Number(process.hrtime.bigint() - started) / 1e6);
            resolve();
          });
        })
        .on('error', reject);
    });
  const worker = async () => {
    while (left-- > 0) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return out.sort((a, b) => a - b);
}

/** Interleaved rounds (A B, B A, …) so that noise falls on both alike. */
async function compareP99(subject: string, baseline: string, rounds = 4) {
  const s: number[] = [];
  const b: number[] = [];
  await hrtimeLatencies(subject, 2000, 10);
  await hrtimeLatencies(baseline, 2000, 10);
  for (let i = 0; i < rounds; i++) {
    for (const which of i % 2 === 0 ? ['s', 'b'] : ['b', 's']) {
      if (which === 's') s.push(...(await hrtimeLatencies(subject, 10_000, 10)));
      else b.push(...(await hrtimeLatencies(baseline, 10_000, 10)));
    }
  }
  s.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  return { subject: percentile(s, 99), baseline: percentile(b, 99) };
}

/** GET /api/elprice for a stored (25-hour) day beside a bare Fastify route sending the same bytes. */
export const elpriceBench: Benchmark = {
  name: 'elprice',
  async run() {
    const fake = await FakeEnergiDataService.start();
    const config = benchConfig({ PRICE_FEED_URL: fake.url });
    const database = await openDatabase({ server: null });
    let sameBytes = Buffer.alloc(0);
    // The app's own shell (auth hook, metrics, request logging) around a route doing nothing but send.
    const shellRoute: Feature = {
      name: 'bench-shell',
      routes: (app) => {
        app.get('/bench/same-bytes', { schema: { hide: true } }, async (_req, reply) =>
          reply.type('application/json').send(sameBytes),
        );
      },
    };
    const runtime = await createRuntime(config, {
      database,
      log: pino({ level: 'silent' }),
      clock: fixedClock(`${DATE}T10:00:00Z`),
      services: powerOnly((ctx) => plus(powerService(ctx), shellRoute)),
    });
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const path = `/api/elprice?date=${DATE}`;
    const first = await fetch(subject + path);
    const body = await first.text();
    if (!first.ok || !(JSON.parse(body) as { complete: boolean }).complete)
      throw new Error(`elprice bench: could not store ${DATE}: ${body.slice(0, 200)}`);
    sameBytes = Buffer.from(body);
    const bare = Fastify();
    bare.get('/api/elprice', async (_req, reply) => reply.type('application/json').send(body));
    const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await compareHttp({
        subject: subject + path,
        baseline: baseline + path,
        rounds: 4,
        secondsPerRound: 3,
      });
      const fine = await compareP99(subject + path, baseline + path);
      const shell = await compareHttp({
        subject: subject + path,
        baseline: `${subject}/bench/same-bytes`,
        rounds: 2,
        secondsPerRound: 3,
      });
      const note = `${DATE}, 50 items, ${body.length} bytes; ${r.subject.errors + r.baseline.errors} errors`;
      return [
        row({
          name: 'GET /api/elprice throughput',
          unit: 'req/s',
          value: r.subject.rps,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.rps,
          target: 'ratio ≥ 0.8',
          note,
        }),
        row({
          name: 'GET /api/elprice p99 (autocannon, whole ms)',
          unit: 'ms',
          value: r.subject.p99,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.p99,
        }),
        row({
          name: 'GET /api/elprice p99 (hrtime, 10 keep-alive sockets, 40k requests)',
          unit: 'ms',
          value: fine.subject,
          baselineName: 'bare Fastify route, same bytes',
          baseline: fine.baseline,
        }),
        row({
          name: 'GET /api/elprice throughput',
          unit: 'req/s',
          value: shell.subject.rps,
          baselineName: "a route in the app's own shell, same bytes",
          baseline: shell.baseline.rps,
          note: 'isolates this route from the shared hooks (auth, metrics, logging)',
        }),
      ];
    } finally {
      await bare.close();
      await runtime.stop();
      await database.close();
      await fake.close();
    }
  },
};
