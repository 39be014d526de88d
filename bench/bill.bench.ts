import { sql } from 'kysely';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/schema.js';
import { powerService } from '../src/power/index.js';
import { insertHouseholdCharges } from '../src/power/household/repository.js';
import type { HouseholdCharge } from '../src/power/household/periods.js';
import { createRuntime } from '../src/runtime.js';
import { fixedClock } from '../src/shared/clock.js';
import { powerOnly } from '../test/support/services.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const TOKEN = 'bench-bill-token-0123456789';

const tariff = (
  role: HouseholdCharge['role'],
  name: string,
  owner: string,
  prices: string[],
): HouseholdCharge => ({
  kind: 'tariff',
  role,
  appliesTo: 'consumption',
  ownerGln: owner,
  owner: null,
  name,
  code: null,
  source: 'config',
  pricesFrom: 'DatahubPricelist',
  validFrom: '2026-01-01T00:00:00',
  validTo: null,
  resolution: 'PT1H',
  prices,
});

/**
 * A year of a quarter-hour meter on PGlite, written by SQL: 35,040 consumption quarters of 2026,
 * the quarter prices of both areas and their hours, and the household's charges (a grid tariff
 * by time of use, Energinet's three, a subscription).
 */
export async function seedQuarterYear(db: Db) {
  const quarters = sql`generate_series(timestamptz '2025-12-31 23:00:00+00', timestamptz '2026-12-31 22:45:00+00', interval '15 minutes')`;
  const grid = Array.from({ length: 24 }, (_, h) =>
    h < 6 ? '0.1062' : h >= 17 && h < 21 ? '0.9556' : '0.3185',
  );
  const flat = (v: string) => Array.from({ length: 24 }, () => v);
  await insertHouseholdCharges(db, [
    tariff('grid', 'Nettarif C time', '5790000705689', grid),
    tariff('transmission', 'Transmissions nettarif', '5790000432752', flat('0.043')),
    tariff('system', 'Systemtarif', '5790000432752', flat('0.072')),
    tariff('electricity_tax', 'Elafgift', '5790000432752', flat('0.008')),
    {
      ...tariff('subscription', 'Netabo C forbrug', '5790000705689', ['45.5']),
      kind: 'subscription',
      resolution: 'P1M',
    },
  ]);
  await sql`
    insert into power.prices (time_dk, price_area, resolution_minutes, price_dkk, price_eur)
    select t, a, 15, round((500 + 300 * sin(extract(epoch from t) / 20000))::numeric, 6), null
      from ${quarters} t cross join (values ('DK1'), ('DK2')) areas(a)`.execute(db);
  await sql`
    insert into power.elprices (time_dk, price_area, price_dkk)
    select date_trunc('hour', time_dk at time zone 'UTC') at time zone 'UTC', price_area, avg(price_dkk)
      from power.prices group by 1, 2`.execute(db);
  await sql`select 1`.execute(db);
  await sql`
    insert into power.consumption (metering_point_id, start_at, quantity_kwh, quality, resolution_minutes)
    select '571313100000012345', t, round((0.05 + 0.2 * abs(sin(extract(epoch from t) / 7000)))::numeric, 3), 'A04', 15
      from ${quarters} t`.execute(db);
  await sql`analyze power.prices, power.elprices, power.consumption, power.metered_hours, power.household_charges`.execute(
    db,
  );
}

async function p50(op: () => Promise<unknown>, rounds: number): Promise<number> {
  const xs: number[] = [];
  for (let r = -2; r < rounds; r++) {
    const t0 = performance.now();
    await op();
    if (r >= 0) xs.push(performance.now() - t0);
  }
  return percentile(
    xs.sort((a, b) => a - b),
    50,
  );
}

/** /api/bill over a year of quarter-hour readings beside one bare SQL statement summing the same products. */
export const billBench: Benchmark = {
  name: 'bill',
  async run(): Promise<BenchRow[]> {
    const database = await openDatabase({ server: null });
    const runtime = await createRuntime(
      benchConfig({ API_TOKEN: TOKEN, PRICE_FEED_URL: 'http://127.0.0.1:9' }),
      {
        database,
        log: pino({ level: 'silent' }),
        clock: fixedClock('2027-01-10T10:00:00Z'),
        services: powerOnly((ctx) => powerService(ctx)),
      },
    );
    const db = database.db;
    try {
      await seedQuarterYear(db);
      // The household's tariffs on the stored hours, as a refresh gives them.
      await runtime.app.ready();
      const { applyHouseholdTariffs } = await import('../src/power/prices/repository.js');
      await applyHouseholdTariffs(db);
      await sql`analyze power.elprices`.execute(db);
      const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
      const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
      const months = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);
      let kwh = 0;
      for (const m of months) {
        const res = await fetch(`${subject}/api/bill?month=${m}`, auth);
        const bill = (await res.json()) as { intervals: number; intervals_priced: number; complete: boolean };
        if (!res.ok || !bill.complete || bill.intervals !== bill.intervals_priced)
          throw new Error(`bill bench: ${m}: ${JSON.stringify(bill).slice(0, 300)}`);
        kwh += bill.intervals;
      }
      if (kwh !== 35_040) throw new Error(`bill bench: ${kwh} intervals billed, expected 35,040`);
      // Σ kWh × (the quarter's spot + every tariff of its hour): the products the bill's lines add up.
      const bare = (start: Date, end: Date) =>
        sql`select sum(c.quantity_kwh * (q.price_dkk * 0.001 + e.tariff_dkk * 0.001 + e.transmission_dkk_kwh
                                          + e.system_dkk_kwh + e.electricity_tax_dkk_kwh))
              from power.consumption c
              join power.prices q on q.time_dk = c.start_at and q.price_area = 'DK1'
              join power.elprices e on e.time_dk = date_trunc('hour', c.start_at at time zone 'UTC') at time zone 'UTC'
                                   and e.price_area = 'DK1'
             where c.start_at >= ${start} and c.start_at < ${end}`.execute(db);
      const year = await p50(
        () =>
          Promise.all(
            months.map(async (m) => (await fetch(`${subject}/api/bill?month=${m}`, auth)).arrayBuffer()),
          ),
        5,
      );
      const yearSequential = await p50(async () => {
        for (const m of months) await (await fetch(`${subject}/api/bill?month=${m}`, auth)).arrayBuffer();
      }, 5);
      const bareYear = await p50(
        () => bare(new Date('2025-12-31T23:00:00Z'), new Date('2026-12-31T23:00:00Z')),
        5,
      );
      const october = await p50(
        async () => (await fetch(`${subject}/api/bill?month=2026-10`, auth)).arrayBuffer(),
        15,
      );
      const bareOctober = await p50(
        () => bare(new Date('2026-09-30T22:00:00Z'), new Date('2026-10-31T23:00:00Z')),
        15,
      );
      const note =
        'PGlite, 2026: 35,040 consumption quarters, 70,080 quarter prices, 17,520 hours; 4 tariffs, 1 subscription';
      return [
        row({
          name: 'GET /api/bill, every month of a year of quarter hours, p50',
          unit: 'ms',
          value: yearSequential,
          baselineName: 'one bare SQL: Σ kWh × (quarter spot + tariffs) over the year',
          baseline: bareYear,
          target: 'ratio ≤ 3',
          note: `12 requests one after the other; ${note}`,
        }),
        row({
          name: 'GET /api/bill, every month of a year of quarter hours, p50',
          unit: 'ms',
          value: year,
          baselineName: 'one bare SQL: Σ kWh × (quarter spot + tariffs) over the year',
          baseline: bareYear,
          note: '12 requests at once',
        }),
        row({
          name: 'GET /api/bill, one month (2,976 quarters), p50',
          unit: 'ms',
          value: october,
          baselineName: 'one bare SQL: the same products over the month',
          baseline: bareOctober,
          note: '2026-10, the 25-hour day included',
        }),
      ];
    } finally {
      await runtime.stop();
      await database.close();
    }
  },
};
