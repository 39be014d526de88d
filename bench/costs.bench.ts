import Fastify from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/schema.js';
import type { Feature } from '../src/context.js';
import { powerService } from '../src/power/index.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { plus, powerOnly } from '../test/support/services.js';
import { benchConfig, compareHttp, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const TOKEN = 'bench-costs-token-0123456789';
const DAY = '2026-07-03';

/**
 * A year of stored hours on PGlite, written by SQL: both areas' prices with every charge for
 * 2026, and 8,760 hours of consumption, production in the daylight hours and solar readings.
 */
export async function seedYear(db: Db) {
  const hours = sql`generate_series(timestamptz '2025-12-31 23:00:00+00', timestamptz '2026-12-31 22:00:00+00', interval '1 hour')`;
  await sql`
    insert into power.elprices (time_dk, price_area, price_dkk, tariff_dkk, total_dkk,
                                transmission_dkk_kwh, system_dkk_kwh, electricity_tax_dkk_kwh)
    select t, a, p, 292.9, p + 292.9, 0.043, 0.072, 0.008
      from ${hours} t cross join (values ('DK1'), ('DK2')) areas(a)
     cross join lateral (select round((500 + 300 * sin(extract(epoch from t) / 20000))::numeric, 6) as p) x`.execute(
    db,
  );
  await sql`
    insert into power.consumption (metering_point_id, start_at, quantity_kwh, quality)
    select '571313100000012345', t, round((0.2 + 0.8 * abs(sin(extract(epoch from t) / 7000)))::numeric, 3), 'A04'
      from ${hours} t`.execute(db);
  await sql`
    insert into power.production (metering_point_id, start_at, quantity_kwh, quality)
    select '571313100000067890', t, round((1.5 * abs(sin(extract(epoch from t) / 9000)))::numeric, 3), 'A04'
      from ${hours} t where extract(hour from t) between 7 and 16`.execute(db);
  await sql`
    insert into power.solar (start_at, energy_kwh, power_w, voltage_v, current_a, frequency_hz, temperature_c, total_yield_kwh)
    select t, round((2 * abs(sin(extract(epoch from t) / 9000)))::numeric, 3), 1000, 230, 4.35, 50, 30, 1000
      from ${hours} t where extract(hour from t) between 6 and 17`.execute(db);
  // Statistics, as autovacuum would gather them on a database in use.
  await sql`analyze power.elprices, power.consumption, power.production, power.solar, power.metered_hours`.execute(
    db,
  );
}

async function timeEach(ops: (() => Promise<unknown>)[], rounds: number): Promise<number[]> {
  const times = ops.map(() => [] as number[]);
  for (let r = -2; r < rounds; r++)
    for (let k = 0; k < ops.length; k++) {
      const i = (k + Math.max(r, 0)) % ops.length;
      const t0 = performance.now();
      await ops[i]!();
      if (r >= 0) times[i]!.push(performance.now() - t0);
    }
  return times.map((xs) =>
    percentile(
      xs.sort((a, b) => a - b),
      50,
    ),
  );
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

/** /api/consumer-prices of a stored day beside a bare route; /api/costs over a year beside bare SQL. */
export const costsBench: Benchmark = {
  name: 'costs',
  async run(): Promise<BenchRow[]> {
    const database = await openDatabase({ server: null });
    const runtime = await createRuntime(
      benchConfig({ API_TOKEN: TOKEN, PRICE_FEED_URL: 'http://127.0.0.1:9' }),
      {
        database,
        log: pino({ level: 'silent' }),
        clock: fixedClock(`${DAY}T10:00:00Z`),
        services: powerOnly((ctx) => plus(powerService(ctx), shellRoute)),
      },
    );
    const db = database.db;
    await seedYear(db);
    const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const path = `/api/consumer-prices?date=${DAY}&area=DK1`;
    const first = await fetch(subject + path);
    const body = await first.text();
    if (!first.ok || !(JSON.parse(body) as { complete: boolean }).complete)
      throw new Error(`costs bench: ${DAY} not complete: ${body.slice(0, 200)}`);
    sameBytes = Buffer.from(body);
    const bare = Fastify();
    bare.get('/api/consumer-prices', async (_req, reply) => reply.type('application/json').send(body));
    const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await compareHttp({
        subject: subject + path,
        baseline: baseline + path,
        rounds: 4,
        secondsPerRound: 3,
      });
      const shell = await compareHttp({
        subject: subject + path,
        baseline: `${subject}/bench/same-bytes`,
        rounds: 2,
        secondsPerRound: 3,
      });

      const costsUrl = `${subject}/api/costs?from=2026-01-01&to=2026-12-31`;
      const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
      const check = await fetch(costsUrl, auth);
      const year = (await check.json()) as {
        days: unknown[];
        total: { hours: number; hours_priced: number };
      };
      if (!check.ok || year.total.hours !== 8760)
        throw new Error(`costs bench: ${JSON.stringify(year.total)}`);
      const start = new Date('2025-12-31T23:00:00Z');
      const end = new Date('2026-12-31T23:00:00Z');
      const [route, same, joined, summed] = await timeEach(
        [
          async () => (await fetch(costsUrl, auth)).arrayBuffer(),
          () =>
            sql`select sum(u.kwh * e.price_dkk)
                  from (select start_at, quantity_kwh as kwh from power.consumption
                         where start_at >= ${start} and start_at < ${end}
                        union all
                        select start_at, quantity_kwh from power.production
                         where start_at >= ${start} and start_at < ${end}
                        union all
                        select start_at, energy_kwh from power.solar
                         where start_at >= ${start} and start_at < ${end}) u
                  join power.elprices e on e.time_dk = u.start_at and e.price_area = 'DK1'`.execute(db),
          () =>
            sql`select sum(c.quantity_kwh * e.price_dkk) from power.consumption c
                  join power.elprices e on e.time_dk = c.start_at and e.price_area = 'DK1'
                 where c.start_at >= ${start} and c.start_at < ${end}`.execute(db),
          () =>
            sql`select sum(quantity_kwh) from power.consumption
                 where start_at >= ${start} and start_at < ${end}`.execute(db),
        ],
        15,
      );
      const note = `PGlite, 2026: 8,760 consumption hours, 3,650 production and 4,380 solar hours, 17,520 price rows`;
      return [
        row({
          name: 'GET /api/consumer-prices throughput (stored day)',
          unit: 'req/s',
          value: r.subject.rps,
          baselineName: 'bare Fastify route, same bytes',
          baseline: r.baseline.rps,
          target: 'ratio ≥ 0.8',
          note: `${DAY} DK1, ${body.length} bytes; ${r.subject.errors + r.baseline.errors} errors`,
        }),
        row({
          name: 'GET /api/consumer-prices throughput (stored day)',
          unit: 'req/s',
          value: shell.subject.rps,
          baselineName: "a route in the app's own shell, same bytes",
          baseline: shell.baseline.rps,
          note: 'isolates this route from the shared hooks (auth, metrics, logging)',
        }),
        row({
          name: 'GET /api/costs, a year of hourly metering, p50',
          unit: 'ms',
          value: route!,
          baselineName:
            'one bare SQL summing the same rows: Σ kWh × spot over consumption, production and solar',
          baseline: same!,
          target: 'ratio ≤ 3',
          note,
        }),
        row({
          name: 'GET /api/costs, a year of hourly metering, p50',
          unit: 'ms',
          value: route!,
          baselineName: 'one bare SQL: Σ consumption × spot, joined on the hour',
          baseline: joined!,
          note: 'consumption only',
        }),
        row({
          name: 'GET /api/costs, a year of hourly metering, p50',
          unit: 'ms',
          value: route!,
          baselineName: 'one bare SQL: sum(consumption) of the year',
          baseline: summed!,
          note: 'the narrowest baseline: one table, no join',
        }),
      ];
    } finally {
      await bare.close();
      await runtime.stop();
      await database.close();
    }
  },
};
