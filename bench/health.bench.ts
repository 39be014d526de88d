import Fastify from 'fastify';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import { createRuntime } from '../src/runtime.js';
import { compareHttp, row, type Benchmark, benchConfig } from './lib.js';

/** GET /health (a database round trip) beside a bare Fastify route: the cost of the app shell. */
export const healthBench: Benchmark = {
  name: 'health',
  async run() {
    const config = benchConfig();
    const database = await openDatabase({ server: null });
    const runtime = await createRuntime(config, { database, log: pino({ level: 'silent' }) });
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const bare = Fastify();
    const body = JSON.stringify((await runtime.app.inject({ url: '/health' })).json());
    bare.get('/health', async (_req, reply) => reply.type('application/json').send(body));
    const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await compareHttp({
        subject: `${subject}/health`,
        baseline: `${baseline}/health`,
        rounds: 2,
        secondsPerRound: 2,
      });
      return [
        row({
          name: 'GET /health throughput',
          unit: 'req/s',
          value: r.subject.rps,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.rps,
        }),
        row({
          name: 'GET /health p99',
          unit: 'ms',
          value: r.subject.p99,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.p99,
        }),
      ];
    } finally {
      await bare.close();
      await runtime.stop();
      await database.close();
    }
  },
};
