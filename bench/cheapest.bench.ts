import Fastify from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import type { Feature } from '../src/context.js';
import { openDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/schema.js';
import { powerService } from '../src/power/index.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { plus, powerOnly } from '../test/support/services.js';
import { benchConfig, compareHttp, row, type Benchmark, type BenchRow } from './lib.js';

const NOW = '2026-07-03T10:05:00Z';
const PATH = '/api/cheapest?minutes=180';

/**
 * Two published Danish days (2026-07-03 and 2026-07-04) of quarter-hour prices for both areas,
 * and their hours with every charge, written by SQL.
 */
async function seedTwoDays(db: Db) {
  await sql`
    insert into power.prices (time_dk, price_area, resolution_minutes, price_dkk, price_eur)
    select t, a, 15, round((500 + 300 * sin(extract(epoch from t) / 20000))::numeric, 6), null
      from generate_series(timestamptz '2026-07-02 22:00:00+00', timestamptz '2026-07-04 21:45:00+00', interval '15 minutes') t
     cross join (values ('DK1'), ('DK2')) areas(a)`.execute(db);
  await sql`
    insert into power.elprices (time_dk, price_area, price_dkk, tariff_dkk, total_dkk,
                                transmission_dkk_kwh, system_dkk_kwh, electricity_tax_dkk_kwh)
    select h, price_area, p, 159.3, p + 159.3, 0.043, 0.072, 0.008
      from (select date_trunc('hour', time_dk at time zone 'UTC') at time zone 'UTC' as h, price_area,
                   avg(price_dkk) as p
              from power.prices group by 1, 2) x`.execute(db);
}

let sameBytes = Buffer.alloc(0);
/** The app's own shell (auth hook, metrics, request logging) around a route doing nothing but send. */
const shellRoute: Feature = {
  name: 'bench-shell',
  routes: (app) => {
    app.get('/bench/same-bytes', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('application/json').send(sameBytes),
    );
  },
};

/** GET /api/cheapest?minutes= over two published days beside a bare route serving the same bytes. */
export const cheapestBench: Benchmark = {
  name: 'cheapest',
  async run(): Promise<BenchRow[]> {
    const database = await openDatabase({ server: null });
    const runtime = await createRuntime(benchConfig({ PRICE_FEED_URL: 'http://127.0.0.1:9' }), {
      database,
      log: pino({ level: 'silent' }),
      clock: fixedClock(NOW),
      services: powerOnly((ctx) => plus(powerService(ctx), shellRoute)),
    });
    await seedTwoDays(database.db);
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const first = await fetch(subject + PATH);
    const body = await first.text();
    const answer = JSON.parse(body) as { basis?: string; end_dk?: string };
    if (!first.ok || answer.basis !== 'total')
      throw new Error(`cheapest bench: no all-in window over the two days: ${body.slice(0, 200)}`);
    sameBytes = Buffer.from(body);
    const bare = Fastify();
    bare.get('/api/cheapest', async (_req, reply) => reply.type('application/json').send(body));
    const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await compareHttp({
        subject: subject + PATH,
        baseline: baseline + PATH,
        rounds: 4,
        secondsPerRound: 3,
      });
      const shell = await compareHttp({
        subject: subject + PATH,
        baseline: `${subject}/bench/same-bytes`,
        rounds: 2,
        secondsPerRound: 3,
      });
      const note = `from ${NOW} over 2026-07-03 and 2026-07-04 (192 quarter hours), ${body.length} bytes`;
      return [
        row({
          name: 'GET /api/cheapest?minutes=180 throughput (two published days)',
          unit: 'req/s',
          value: r.subject.rps,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.rps,
          target: 'ratio ≥ 0.8',
          note: `${note}; ${r.subject.errors + r.baseline.errors} errors`,
        }),
        row({
          name: 'GET /api/cheapest?minutes=180 throughput (two published days)',
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
    }
  },
};
