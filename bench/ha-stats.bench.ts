import { sql } from 'kysely';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import * as repo from '../src/power/ha-statistics/repository.js';
import type { HaStatisticsService } from '../src/power/ha-statistics/service.js';
import { batches, importCommand, STATISTICS, withSums } from '../src/power/ha-statistics/statistics.js';
import { applyHouseholdTariffs } from '../src/power/prices/repository.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { FakeHomeAssistant } from '../test/fakes/home-assistant.js';
import { haStatisticsServices } from '../test/support/ha-statistics.js';
import { seedQuarterYear } from './bill.bench.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const PRICING = { area: 'DK1', markup: '0', vatRate: '0.25' };

/**
 * A year of a quarter-hour meter (the bill benchmark's 35,040 consumption quarters and their
 * prices and tariffs, and production in the daylight quarters) written to a fake Home Assistant as
 * long-term statistics by the writer's own round: the time and the messages it sends, beside the
 * same hours serialised into the same commands with nothing else (no database, no socket); and
 * the hourly look for changed hours when nothing changed, beside one bare SQL over the same
 * intervals.
 */
export const haStatsBench: Benchmark = {
  name: 'ha-stats',
  async run(): Promise<BenchRow[]> {
    const ha = await FakeHomeAssistant.start();
    const database = await openDatabase({ server: null });
    let writer: HaStatisticsService | null = null;
    const runtime = await createRuntime(
      benchConfig({ PRICE_FEED_URL: 'http://127.0.0.1:9', HA_URL: ha.url, HA_TOKEN: ha.token }),
      {
        database,
        log: pino({ level: 'silent' }),
        clock: fixedClock('2027-01-10T10:00:00Z'),
        services: haStatisticsServices((w) => (writer = w)),
      },
    );
    const db = database.db;
    try {
      await seedQuarterYear(db);
      await applyHouseholdTariffs(db);
      await sql`
        insert into power.production (metering_point_id, start_at, quantity_kwh, quality, resolution_minutes)
        select '571313100000067890', start_at, round((0.5 * abs(sin(extract(epoch from start_at) / 9000)))::numeric, 3), 'A04', 15
          from power.consumption where extract(hour from start_at) between 7 and 15`.execute(db);
      await sql`analyze power.production, power.metered_hours`.execute(db);
      const w = writer as HaStatisticsService | null;
      if (!w) throw new Error('ha-stats bench: the writer was not built');

      const t0 = performance.now();
      const first = await w.writeNow();
      const writeMs = performance.now() - t0;
      const expected = 8760 * 2 + 9 * 365 * 2;
      if (first.hours !== expected || ha.errors.length > 0)
        throw new Error(
          `ha-stats bench: ${first.hours} hours written, expected ${expected}; ${JSON.stringify(ha.errors[0])}`,
        );

      // the same hours, serialised into the same commands and nothing else
      const hours = STATISTICS.map((s) =>
        withSums(
          '0',
          ha.hours(s.id).map((h) => ({ start: new Date(h.start), state: String(h.state) })),
        ),
      );
      const bare = () => {
        let bytes = 0;
        STATISTICS.forEach((s, i) => {
          for (const b of batches(hours[i]!, 1_000))
            bytes += JSON.stringify({ id: 1, ...importCommand(s, b) }).length;
        });
        return bytes;
      };
      const bareMs = p50(bare, 9);

      const idle = await p50Async(async () => {
        const r = await w.writeNow();
        if (r.hours !== 0) throw new Error('ha-stats bench: an idle round wrote hours');
      }, 7);
      const bareSql = await p50Async(
        () =>
          sql`select date_trunc('hour', m.start_at) as h, sum(m.consumption_kwh * (q.price_dkk * 0.001 + e.tariff_dkk * 0.001
                      + e.transmission_dkk_kwh + e.system_dkk_kwh + e.electricity_tax_dkk_kwh)), sum(m.production_kwh)
                 from power.metered_hours m
                 join power.prices q on q.time_dk = m.start_at and q.price_area = 'DK1'
                 join power.elprices e on e.time_dk = date_trunc('hour', m.start_at at time zone 'UTC') at time zone 'UTC'
                                      and e.price_area = 'DK1'
                group by 1`.execute(db),
        7,
      );
      const pending = await p50Async(() => repo.pendingHours(db, PRICING), 7);
      const note = `PGlite in memory; 35,040 quarters, ${first.hours} hours in 4 statistics, batches of 1,000 hours`;
      return [
        row({
          name: 'a year of quarter hours written as statistics (first round)',
          unit: 'ms',
          value: writeMs,
          baselineName: 'the same hours serialised into the same commands, bare',
          baseline: bareMs,
          note: `${first.messages} messages to Home Assistant (1 auth, ${first.messages - 1} imports); ${note}`,
        }),
        row({
          name: 'the hourly round when nothing changed (a year), p50',
          unit: 'ms',
          value: idle,
          baselineName: 'one bare SQL: Σ per hour of kWh × (spot + tariffs) and production over the year',
          baseline: bareSql,
          note: `0 messages; its query of pending hours alone ${pending.toFixed(0)} ms`,
        }),
      ];
    } finally {
      await runtime.stop();
      await database.close();
      await ha.close();
    }
  },
};

function p50(op: () => unknown, rounds: number): number {
  const xs: number[] = [];
  for (let r = -1; r < rounds; r++) {
    const t0 = performance.now();
    op();
    if (r >= 0) xs.push(performance.now() - t0);
  }
  return percentile(
    xs.sort((a, b) => a - b),
    50,
  );
}

async function p50Async(op: () => Promise<unknown>, rounds: number): Promise<number> {
  const xs: number[] = [];
  for (let r = -1; r < rounds; r++) {
    const t0 = performance.now();
    await op();
    if (r >= 0) xs.push(performance.now() - t0);
  }
  return percentile(
    xs.sort((a, b) => a - b),
    50,
  );
}
