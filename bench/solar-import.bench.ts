import { parse } from 'csv-parse';
import { sql } from 'kysely';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openDatabase, type Database } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import type { SolarTable } from '../src/power/solar/tables.js';
import { SOLAR_BATCH, SolarService } from '../src/power/solar/service.js';
import { systemClock } from '../src/shared/clock.js';
import { writeSolarCsv } from '../test/fakes/solar-csv.js';
import { freshDatabase, TEST_DATABASE_URL } from '../test/support/db.js';
import { row, type Benchmark } from './lib.js';

const ROWS = 100_000;
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/**
 * Peak growth of the live heap over a run: every 200 ms a forced collection, then a reading, so
 * garbage waiting for the collector does not count as memory held. Slows the run, so it is
 * measured apart from the timings.
 */
async function liveHeap(fn: () => Promise<unknown>): Promise<{ heapMb: number; rssMb: number }> {
  gc();
  const base = process.memoryUsage();
  let heap = base.heapUsed;
  let rss = base.rss;
  const sample = () => {
    gc();
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
  };
  const timer = setInterval(sample, 200);
  try {
    await fn();
    sample();
    return { heapMb: (heap - base.heapUsed) / MB, rssMb: rss / MB };
  } finally {
    clearInterval(timer);
  }
}

/** The same rows parsed into memory beforehand, for the baseline: what a non-streaming import holds. */
async function loadRows(file: string): Promise<SolarTable[]> {
  const rows: SolarTable[] = [];
  const parser = createReadStream(file).pipe(parse({ from_line: 2 }));
  for await (const r of parser as AsyncIterable<string[]>) {
    const [t, energy_kwh, power_w, voltage_v, current_a, frequency_hz, temperature_c, total_yield_kwh] = r;
    rows.push({
      start_at: new Date(t!),
      energy_kwh: energy_kwh!,
      power_w: power_w!,
      voltage_v: voltage_v!,
      current_a: current_a!,
      frequency_hz: frequency_hz!,
      temperature_c: temperature_c!,
      total_yield_kwh: total_yield_kwh!,
    });
  }
  return rows;
}

/** Plain multi-row INSERTs of the same batch size in one transaction: no parsing, no validation, no conflict handling. */
async function plainInsert(database: Database, rows: SolarTable[]): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += SOLAR_BATCH)
      await trx
        .insertInto('power.solar')
        .values(rows.slice(i, i + SOLAR_BATCH))
        .execute();
  });
}

const truncate = (database: Database) => sql`truncate power.solar`.execute(database.db);

/**
 * `import-solar` of a generated 100,000-row CSV (streamed, validated, ON CONFLICT DO NOTHING)
 * beside plain multi-row INSERTs of the same rows, alternating; and its peak memory growth
 * beside that of a 10,000-row file, which shows memory does not grow with the file.
 */
export const solarImportBench: Benchmark = {
  name: 'solar-import',
  async run() {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-solar-'));
    const big = path.join(dir, 'solar-100k.csv');
    const small = path.join(dir, 'solar-10k.csv');
    await writeSolarCsv(big, new Date('2010-01-01T00:00:00Z'), ROWS);
    await writeSolarCsv(small, new Date('2010-01-01T00:00:00Z'), ROWS / 10);
    // On PGlite in a data folder, as a household runs it (what reaches the disk counts), or on
    // the TEST_DATABASE_URL server.
    const test = TEST_DATABASE_URL
      ? await freshDatabase()
      : await openDatabase({ server: null, dataDir: path.join(dir, 'data') }).then(async (database) => {
          await migrate(database);
          return { database, close: () => database.close() };
        });
    const database = test.database;
    const solar = new SolarService({ db: database.db, clock: systemClock });
    try {
      const imports: number[] = [];
      const plains: number[] = [];
      const importOnce = async () => {
        await truncate(database);
        const r = await timed(() => solar.importSolarFile(big));
        if (r.value.inserted !== ROWS) throw new Error(`imported ${r.value.inserted} rows, expected ${ROWS}`);
        imports.push(r.ms);
      };
      const plainOnce = async () => {
        await truncate(database);
        const rows = await loadRows(big);
        plains.push((await timed(() => plainInsert(database, rows))).ms);
      };
      for (const step of [importOnce, plainOnce, plainOnce, importOnce]) await step();
      await truncate(database);
      const smallRun = await liveHeap(() => solar.importSolarFile(small));
      await truncate(database);
      const bigRun = await liveHeap(() => solar.importSolarFile(big));
      gc();
      const before = process.memoryUsage().heapUsed;
      const held = await loadRows(big);
      gc();
      const heldMb = (process.memoryUsage().heapUsed - before) / MB;
      if (held.length !== ROWS) throw new Error('baseline rows missing');

      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      return [
        row({
          name: `import-solar of ${ROWS} CSV rows (${database.kind}${TEST_DATABASE_URL ? '' : ' in a data folder'})`,
          unit: 'ms',
          value: mean(imports),
          baselineName: `plain multi-row INSERT of the same rows, ${SOLAR_BATCH}/statement`,
          baseline: mean(plains),
          note: `${Math.round(ROWS / (mean(imports) / 1000))} rows/s`,
        }),
        row({
          name: `import-solar peak live heap growth, ${ROWS} rows`,
          unit: 'MB',
          value: bigRun.heapMb,
          baselineName: `the same import of ${ROWS / 10} rows`,
          baseline: smallRun.heapMb,
          target: 'far below 10, the ratio of the rows',
          note: `peak RSS ${Math.round(bigRun.rssMb)} MB vs ${Math.round(smallRun.rssMb)} MB`,
        }),
        row({
          name: `import-solar peak live heap growth, ${ROWS} rows`,
          unit: 'MB',
          value: bigRun.heapMb,
          baselineName: `the ${ROWS} rows parsed and held in memory`,
          baseline: heldMb,
        }),
      ];
    } finally {
      await test.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
