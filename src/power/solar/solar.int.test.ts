import { sql } from 'kysely';
import { appendFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOLAR_HEADER, solarLines, writeSolarCsv } from '../../../test/fakes/solar-csv.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ROOT } from '../../../test/support/process.js';
import { importSolarCommand } from './command.js';
import { createSolarFeature } from './index.js';
import { powerOnly } from '../../../test/support/services.js';
import { SolarImportError, SolarService } from './service.js';

const SAMPLE = path.join(ROOT, 'examples/solar-sample.csv');
let t: TestApp;
let dir: string;

async function csv(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

async function rowCount(): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from power.solar`.execute(t.ctx.database.db);
  return r.rows[0]!.n;
}

function solar(): SolarService {
  return new SolarService({ db: t.ctx.database.db, clock: t.ctx.clock });
}

async function failureOf(file: string): Promise<SolarImportError> {
  const e = await solar()
    .importSolarFile(file)
    .then(
      () => null,
      (err: unknown) => err,
    );
  expect(e).toBeInstanceOf(SolarImportError);
  return e as SolarImportError;
}

function command() {
  const out: string[] = [];
  const err: string[] = [];
  const cmd = importSolarCommand({ out: (l) => out.push(l), err: (l) => err.push(l) });
  return { run: (files: string[]) => cmd.run(files, t.ctx), out, err };
}

const good = [...solarLines(new Date('2024-05-01T22:00:00Z'), 6)];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'satwatt-solar-'));
  t = await startTestApp({ services: powerOnly((ctx) => [createSolarFeature(ctx)]) });
});
afterAll(() => t.close());

describe('import-solar and GET /api/solar', () => {
  it('imports the sample file, and a re-import changes nothing', async () => {
    const first = command();
    expect(await first.run([SAMPLE])).toBe(0);
    expect(first.out).toEqual([`${SAMPLE}: 49 rows, 49 new, 0 already stored`]);
    const before = await t.ctx.database.db
      .selectFrom('power.solar')
      .selectAll()
      .orderBy('start_at')
      .execute();
    const again = command();
    expect(await again.run([SAMPLE])).toBe(0);
    expect(again.out).toEqual([`${SAMPLE}: 49 rows, 0 new, 49 already stored`]);
    const after = await t.ctx.database.db.selectFrom('power.solar').selectAll().orderBy('start_at').execute();
    expect(after).toEqual(before);
  });

  it('answers the readings of a Danish day, with both 02:00 hours of the autumn change', async () => {
    const autumn = (await t.call('GET', '/api/solar?date=2025-10-26')).json();
    expect(autumn).toHaveLength(25);
    expect(autumn.slice(2, 4).map((r: { time_dk: string }) => r.time_dk)).toEqual([
      '2025-10-26T02:00:00+02:00',
      '2025-10-26T02:00:00+01:00',
    ]);
    const summer = (await t.call('GET', '/api/solar?date=2025-06-21')).json();
    expect(summer).toHaveLength(24);
    expect(summer[13]).toEqual({
      time_dk: '2025-06-21T13:00:00+02:00',
      energy_kwh: 4.649,
      power_w: 4649,
      voltage_v: 229.3,
      current_a: 6.76,
      frequency_hz: 50.04,
      temperature_c: 42,
      total_yield_kwh: 10025.7,
    });
    expect((await t.call('GET', '/api/solar?date=2025-06-22')).json()).toEqual([]);
    const bad = await t.call('GET', '/api/solar?date=2025-13-01');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^querystring\.date/);
  });

  it('writes nothing from a file with a bad row and names the file and line of each', async () => {
    const before = await rowCount();
    const file = await csv('bad.csv', [
      SOLAR_HEADER,
      good[0]!,
      good[1]!,
      good[2]!.replace(/,[\d.]+,/, ',abc,'),
      good[3]!,
      good[4]!.replace('+02:00', ''),
    ]);
    const c = command();
    expect(await c.run([file])).toBe(1);
    expect(c.err).toEqual([
      `${file}:4: energy_kwh: "abc" is not a number with at most 3 decimals`,
      `${file}:6: timestamp: "2024-05-02T04:00:00" is not an ISO 8601 instant with an offset (2025-06-01T13:00:00+02:00)`,
      `${file}: nothing imported (2 bad rows shown)`,
    ]);
    expect(await rowCount()).toBe(before);
  });

  it.each([
    ['a missing column', [SOLAR_HEADER.replace(',power_w', '')], 1, 'missing column power_w'],
    ['an unknown column', [`${SOLAR_HEADER},comment`], 1, 'unknown column "comment"'],
    [
      'a short row',
      [SOLAR_HEADER, good[0]!, good[1]!.split(',').slice(0, 7).join(',')],
      3,
      'expected 8 fields, found 7',
    ],
    ['an empty value', [SOLAR_HEADER, good[0]!.replace(/,[\d.]+$/, ',')], 2, 'total_yield_kwh: is empty'],
    [
      'too many decimals',
      [SOLAR_HEADER, good[0]!.replace(/,([\d.]+),([\d.]+)$/, ',$1,1.25')],
      2,
      'total_yield_kwh: "1.25" is not a number with at most 1 decimals',
    ],
    [
      'a value out of range',
      [SOLAR_HEADER, good[0]!.replace(/,[\d.]+,([\d.]+)$/, ',130.0,$1')],
      2,
      'temperature_c: 130.0 is outside -50 to 120',
    ],
    [
      'a time not on the hour',
      [SOLAR_HEADER, good[0]!.replace(':00:00+', ':30:00+')],
      2,
      'does not start an hour',
    ],
    [
      'a repeated hour',
      [SOLAR_HEADER, good[0]!, good[1]!, good[1]!],
      4,
      "is not after the previous row's (line 3)",
    ],
    ['an unclosed quote', [SOLAR_HEADER, good[0]!, `"${good[1]!}`, good[2]!], 4, 'Quote Not Closed'],
    ['no header', [], 1, 'the file has no header row'],
  ])('refuses %s, naming the line', async (_what, lines, line, message) => {
    const before = await rowCount();
    const e = await failureOf(await csv(`case-${line}-${Math.random()}.csv`, lines));
    expect(e.errors[0]).toMatchObject({ line });
    expect(e.errors[0]!.message).toContain(message);
    expect(await rowCount()).toBe(before);
  });

  it.each([
    ['an unclosed quote', [SOLAR_HEADER, good[0]!, `"${good[1]!}`], 3, 'Quote Not Closed'],
    ['a bad row', [SOLAR_HEADER, good[0]!.replace(':00:00+', ':30:00+')], 2, 'does not start an hour'],
  ])(
    'refuses %s while the database is still busy when the file has been read to its end',
    async (_what, lines, line, message) => {
      const file = await csv(`busy-${Math.random()}.csv`, lines);
      const busy = sql`select pg_sleep(0.3)`.execute(t.ctx.database.db);
      const e = await failureOf(file);
      await busy;
      expect(e.errors[0]).toMatchObject({ line });
      expect(e.errors[0]!.message).toContain(message);
    },
  );

  it('refuses a path that is a folder, naming it', async () => {
    const cmd = command();
    expect(await cmd.run([dir])).toBe(1);
    expect(cmd.err).toEqual([`${dir}: ${dir} is not a file`]);
  });

  it('reads quoted fields and CRLF line ends as CSV, not by splitting strings', async () => {
    const lines = [...solarLines(new Date('2024-06-01T10:00:00Z'), 2)].map((l) =>
      l
        .split(',')
        .map((f) => `"${f}"`)
        .join(','),
    );
    const file = path.join(dir, 'quoted.csv');
    await writeFile(file, `\uFEFF${SOLAR_HEADER}\r\n${lines.join('\r\n')}\r\n`);
    expect(await solar().importSolarFile(file)).toEqual({ file, rows: 2, inserted: 2 });
  });

  it('streams a file larger than one batch and reports progress up to its size', async () => {
    const file = path.join(dir, 'large.csv');
    await writeSolarCsv(file, new Date('2020-01-01T00:00:00Z'), 5000);
    const progress: number[] = [];
    let total = 0;
    const r = await solar().importSolarFile(file, (bytes, size) => {
      progress.push(bytes);
      total = size;
    });
    expect(r).toEqual({ file, rows: 5000, inserted: 5000 });
    expect(progress.at(-1)).toBe(total);
    expect(progress.every((b, i) => i === 0 || b >= progress[i - 1]!)).toBe(true);
  });

  it('rolls back the batches already written when a bad row comes late in a large file', async () => {
    const before = await rowCount();
    const file = path.join(dir, 'late-error.csv');
    await writeSolarCsv(file, new Date('2015-01-01T00:00:00Z'), 4500);
    await appendFile(file, '2016-01-01T00:00:00Z,1.000,1000.0,230.0,4.35,50.00,20.0,-1.0\n');
    const e = await failureOf(file);
    expect(e.errors).toEqual([{ line: 4502, message: 'total_yield_kwh: -1.0 is outside 0 to 10000000000' }]);
    expect(await rowCount()).toBe(before);
  });

  it('imports the good files of a run and reports the bad one', async () => {
    const ok = await csv('ok.csv', [SOLAR_HEADER, ...solarLines(new Date('2023-01-01T00:00:00Z'), 3)]);
    const bad = await csv('broken.csv', [SOLAR_HEADER, 'x,1,1,1,1,50,1,1']);
    const c = command();
    expect(await c.run([bad, ok, path.join(dir, 'absent.csv')])).toBe(1);
    expect(c.out).toEqual([`${ok}: 3 rows, 3 new, 0 already stored`]);
    expect(c.err[0]).toContain(`${bad}:2: timestamp: "x"`);
    expect(c.err.at(-1)).toMatch(/absent\.csv: ENOENT/);
    expect(await command().run([])).toBe(2);
  });
});
