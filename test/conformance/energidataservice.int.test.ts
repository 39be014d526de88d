import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedHealth } from '../../src/shared/health.js';
import { EnergiDataService, parseDayAheadPrices } from '../../src/providers/energidataservice.js';
import { BudgetExhausted } from '../../src/providers/budget.js';
import { ProviderError } from '../../src/providers/http.js';
import { segments } from '../../src/power/household/periods.js';
import { addDays } from '../../src/shared/danish-time.js';
import { FakeHttpServer } from '../fakes/http.js';
import { SHARED_FIXTURES_DIR, sharedFixture, sharedFixturesPresent } from '../fakes/shared-fixtures.js';
import { testDeps } from '../support/providers.js';
import { problemOf } from '../../src/http/problem.js';

const DIR = 'energidataservice';
type Records = { records: Record<string, unknown>[] };

if (!sharedFixturesPresent)
  console.log(`conformance: ${SHARED_FIXTURES_DIR} is absent; skipping energidataservice`);

/** The recorded Energi Data Service answers, replayed through the adapter over a real socket. */
describe.skipIf(!sharedFixturesPresent)('energidataservice conformance (recorded answers)', () => {
  let fake: FakeHttpServer;
  let eds: EnergiDataService;
  let answer: { path: string; body: unknown; status?: number };

  beforeAll(async () => {
    fake = await FakeHttpServer.start();
    fake.on('GET', /^\/dataset\//, (r) => {
      if (r.path !== answer.path) return { status: 404, json: { message: `unexpected ${r.path}` } };
      return { status: answer.status ?? 200, json: answer.body };
    });
    eds = new EnergiDataService({
      ...testDeps('eds'),
      baseUrl: fake.url,
      timeoutMs: 2000,
      retries: 0,
      initialDelayMs: 5,
    });
  });
  afterAll(() => fake.close());

  it('DayAheadPrices quarter hours of DK1 on 2026-07-03 (default descending order)', async () => {
    const body = sharedFixture<Records>(
      `${DIR}/dayaheadprices_DK1_2026-07-03_quarterhours_records_only_hf.json`,
    );
    answer = { path: '/dataset/DayAheadPrices', body };
    const rows = await eds.spotPrices('2026-07-03', '2026-07-04');
    expect(rows).toHaveLength(body.records.length);
    expect(rows.every((r) => r.area === 'DK1' && r.minutes === 15)).toBe(true);
    const last = rows.at(-1)!;
    expect(last.timeUtc.toISOString()).toBe('2026-07-03T21:45:00.000Z');
    expect(last.priceDkk).toBe('702.67776');
    expect(last.priceEur).toBe('94.010002');
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.timeUtc > rows[i - 1]!.timeUtc).toBe(true);
  });

  it('DayAheadPrices single hourly record of DK2 (before the 15-minute switch)', async () => {
    const body = sharedFixture(`${DIR}/dayaheadprices_DK2_single_record_csharp_test.json`);
    expect(parseDayAheadPrices(body)).toEqual([
      {
        timeUtc: new Date('2025-09-27T21:00:00Z'),
        area: 'DK2',
        minutes: 60,
        priceDkk: '740.951258',
        priceEur: '99.269997',
      },
    ]);
    // Asked for another day, the same answer is outside the asked range: dropped, counted, never stored.
    answer = { path: '/dataset/DayAheadPrices', body };
    const health = new FeedHealth('prices', true);
    const counted = new EnergiDataService({ ...testDeps('eds'), baseUrl: fake.url, timeoutMs: 2000, health });
    expect(await counted.spotPrices('2025-10-01', '2025-10-02')).toEqual([]);
    expect(health.rejected).toBe(1);
  });

  it.each([
    ['elspotprices_noparams_2024-08-29_TRIMMED.json', '2024-08-29'],
    ['elspotprices_sort_echo_2023-05-21_TRIMMED.json', '2023-05-21'],
  ])('Elspotprices %s: DK1 and DK2 kept, other areas dropped, hourly', async (file, day) => {
    answer = { path: '/dataset/Elspotprices', body: sharedFixture(`${DIR}/${file}`) };
    const rows = await eds.spotPrices(day, addDays(day, 1));
    expect(rows.map((r) => r.area).sort()).toEqual(['DK1', 'DK2']);
    expect(rows.every((r) => r.minutes === 60 && Number(r.priceDkk) > 0)).toBe(true);
  });

  it('DatahubPricelist of N1 (CD with CD R discounts) becomes consecutive periods', async () => {
    answer = {
      path: '/dataset/DatahubPricelist',
      body: sharedFixture(`${DIR}/datahubpricelist_N1_CD_columns-subset_openhab.json`),
    };
    const records = await eds.tariffs('5790001089030', ['CD', 'CD R']);
    expect(records).toHaveLength(20);
    const periods = segments(records);
    for (let i = 1; i < periods.length; i++) expect(periods[i]!.validFrom).toBe(periods[i - 1]!.validTo);
    const q1 = periods.find((p) => p.validFrom === '2023-01-01T00:00:00')!;
    // Radius's published C tariff: 2023-01..03 Price18-20 = 1.05619, 0.432225 otherwise; the 2023 discount is 0.
    expect(q1.prices[17]).toBe('1.05619');
    expect(q1.prices[0]).toBe('0.432225');
    expect(periods.at(-1)).toMatchObject({ validFrom: '2023-04-01T00:00:00', validTo: null });
  });

  it.each([
    'datahubpricelist_elafgift_allcolumns_openhab.json',
    'datahubpricelist_energinet_systemtarif_openhab.json',
    'datahubpricelist_TreforOst_46_daily_records_TRIMMED_openhab.json',
  ])('DatahubPricelist %s parses; flat records hold Price1 all day', async (file) => {
    const body = sharedFixture<Records>(`${DIR}/${file}`);
    answer = { path: '/dataset/DatahubPricelist', body };
    const records = await eds.tariffs('5790000432752', ['any']);
    expect(records).toHaveLength(body.records.length);
    for (const [i, r] of records.entries()) {
      expect(r.hourly).toHaveLength(24);
      if (body.records[i]!.Price2 === null) expect(new Set(r.hourly).size).toBe(1);
    }
  });

  it('the documented 429 answer is a ProviderError that the API answers with 503', async () => {
    const body = sharedFixture<{ status: number; message: string }>(
      `${DIR}/error_429_rate_limit_DOCUMENTED_TEXT.json`,
    );
    answer = { path: '/dataset/DayAheadPrices', body, status: body.status };
    // Its own budget: the 429 pauses it for the documented five-minute block.
    const blocked = new EnergiDataService({ ...testDeps('eds'), baseUrl: fake.url, timeoutMs: 2000 });
    const error = await blocked.spotPrices('2026-01-01', '2026-01-02').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(429);
    expect(problemOf(error)).toMatchObject({ status: 503 });
    expect((error as ProviderError).message).toContain('Max allowed requests');
    // One request, no retries into the block; a client's next request is refused without a call.
    const requests = fake.requests.length;
    const refused = await blocked
      .spotPrices('2026-01-01', '2026-01-02', undefined, 'refuse')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExhausted);
    expect(Number(problemOf(refused)!.headers?.['retry-after'])).toBeGreaterThan(290);
    expect(fake.requests.length).toBe(requests);
  });
});
