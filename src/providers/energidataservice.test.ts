import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  dayAheadRecords,
  elspotRecords,
  generatedPrice,
  tariffRecord,
} from '../../test/fakes/energidataservice.js';
import { FeedHealth } from '../shared/health.js';
import {
  EnergiDataService,
  parseDatahubPricelist,
  parseDayAheadPrices,
  parseElspotprices,
} from './energidataservice.js';
import { ProviderError } from './http.js';
import { testDeps } from '../../test/support/providers.js';

let fake: FakeEnergiDataService;
let health: FeedHealth;
let eds: EnergiDataService;

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.publication.clear();
  health = new FeedHealth('prices', true);
  eds = new EnergiDataService({
    ...testDeps('eds'),
    baseUrl: fake.url,
    timeoutMs: 500,
    retries: 2,
    initialDelayMs: 5,
    health,
  });
});

const perArea = (rows: { area: string }[], area: string) => rows.filter((r) => r.area === area).length;

describe('EnergiDataService spot prices', () => {
  it.each([
    ['2025-10-26', 100, 15],
    ['2026-03-29', 92, 15],
    ['2026-06-15', 96, 15],
    ['2024-10-27', 25, 60],
    ['2025-03-30', 23, 60],
    ['2025-09-30', 24, 60],
  ])('%s: %i rows per area of %i minutes', async (date, n, minutes) => {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number];
    const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
    const rows = await eds.spotPrices(date, next);
    expect(perArea(rows, 'DK1')).toBe(n);
    expect(perArea(rows, 'DK2')).toBe(n);
    expect(rows.every((r) => r.minutes === minutes)).toBe(true);
    expect(fake.server.requests).toHaveLength(1);
    const first = rows[0]!;
    expect(first.priceDkk).toBe(String(generatedPrice(first.timeUtc, first.area)));
  });

  it('keys rows on TimeUTC: the repeated 02:00 of the autumn change gives distinct instants', async () => {
    const rows = (await eds.spotPrices('2025-10-26', '2025-10-27')).filter((r) => r.area === 'DK1');
    expect(new Set(rows.map((r) => r.timeUtc.getTime())).size).toBe(100);
  });

  it('a range across 2025-10-01 asks each dataset once', async () => {
    const rows = await eds.spotPrices('2025-09-29', '2025-10-03');
    expect(fake.server.requests.map((r) => r.path)).toEqual([
      '/dataset/Elspotprices',
      '/dataset/DayAheadPrices',
    ]);
    expect(perArea(rows, 'DK1')).toBe(2 * 24 + 2 * 96);
  });

  it('retries a 5xx and a 429 with Retry-After, then succeeds', async () => {
    fake.server.failNext({ kind: 'status', status: 503 });
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    const rows = await eds.spotPrices('2026-01-05', '2026-01-06');
    expect(rows).toHaveLength(192);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.server.requests).toHaveLength(3);
    expect(health.ok).toBe(true);
  });

  it('malformed JSON and a wrong shape are ProviderErrors and show in health', async () => {
    fake.server.failAlways({ kind: 'malformed' });
    await expect(eds.spotPrices('2026-01-05', '2026-01-06')).rejects.toBeInstanceOf(ProviderError);
    expect(health.ok).toBe(false);
    expect(() =>
      parseDayAheadPrices({ records: [{ TimeUTC: 'yesterday', PriceArea: 'DK1', DayAheadPriceDKK: 1 }] }),
    ).toThrow(/TimeUTC/);
    expect(() => parseDayAheadPrices({ total: 0 })).toThrow(/records/);
    expect(() =>
      parseDayAheadPrices({
        records: [{ TimeUTC: '2026-01-01T00:00:00', PriceArea: 'DK1', DayAheadPriceDKK: 'x' }],
      }),
    ).toThrow(ProviderError);
  });

  it('a half day comes back as the rows that exist', async () => {
    fake.publication.set('2026-01-07', 'half');
    const rows = await eds.spotPrices('2026-01-07', '2026-01-08');
    expect(rows.length).toBe(96);
    expect(rows.every((r) => r.minutes === 15)).toBe(true);
  });

  it('tells the resolution from the gaps, also in default descending order and for other areas', () => {
    const body = { records: [...dayAheadRecords('2025-09-15'), ...dayAheadRecords('2025-10-15')].reverse() };
    const rows = parseDayAheadPrices(body);
    expect(rows.filter((r) => r.minutes === 60)).toHaveLength(48);
    expect(rows.filter((r) => r.minutes === 15)).toHaveLength(192);
    const withOthers = {
      records: [
        ...elspotRecords('2024-05-01'),
        {
          HourUTC: '2024-05-01T00:00:00',
          HourDK: '2024-05-01T02:00:00',
          PriceArea: 'SE3',
          SpotPriceDKK: 1,
          SpotPriceEUR: 0.1,
        },
      ],
    };
    expect(parseElspotprices(withOthers)).toHaveLength(48);
    // The other dataset's field names are not silently read as no prices.
    expect(() => parseDayAheadPrices(withOthers)).toThrow(ProviderError);
  });
});

describe('EnergiDataService tariffs', () => {
  it('reads DatahubPricelist records; a flat record holds Price1 for every hour', async () => {
    fake.tariffs = [
      tariffRecord({
        validFrom: '2026-04-01T00:00:00',
        validTo: null,
        hourly: Array.from({ length: 24 }, (_, h) => 0.1 + h / 1000),
      }),
      tariffRecord({ code: 'OTHER', validFrom: '2026-04-01T00:00:00', validTo: null, hourly: [1] }),
      tariffRecord({
        validFrom: '2026-01-01T00:00:00',
        validTo: '2026-04-01T00:00:00',
        hourly: [0.25, ...Array(23).fill(null)],
      }),
    ];
    const records = await eds.tariffs('5790000705689', ['DT_C_01']);
    expect(records).toHaveLength(2);
    expect(records[0]!.hourly[23]).toBe('0.123');
    expect(records[1]!.hourly).toEqual(Array(24).fill('0.25'));
    expect(records[1]!.validTo).toBe('2026-04-01T00:00:00');
    const q = JSON.parse(fake.server.requests[0]!.query.get('filter')!);
    expect(q).toEqual({ GLN_Number: ['5790000705689'], ChargeType: ['D03'], ChargeTypeCode: ['DT_C_01'] });
  });

  it('rejects a record without ValidFrom', () => {
    expect(() => parseDatahubPricelist({ records: [{ ChargeTypeCode: 'X', Price1: 1 }] }, '1')).toThrow(
      /ValidFrom/,
    );
  });
});
