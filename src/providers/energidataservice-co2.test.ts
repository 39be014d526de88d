import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEnergiDataService, generatedCo2 } from '../../test/fakes/energidataservice.js';
import { testDeps } from '../../test/support/providers.js';
import { FeedHealth } from '../shared/health.js';
import { Co2Provider, parseCo2 } from './energidataservice-co2.js';
import { ProviderError } from './http.js';

let fake: FakeEnergiDataService;
let health: FeedHealth;
let co2: Co2Provider;
const NOW = new Date('2026-10-25T09:02:00Z');

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.co2.extra = [];
  fake.co2.issue = 0;
  fake.co2.now = () => NOW;
  health = new FeedHealth('co2', true);
  co2 = new Co2Provider({
    ...testDeps('eds'),
    baseUrl: fake.url,
    timeoutMs: 500,
    retries: 2,
    initialDelayMs: 5,
    health,
  });
});

describe('the CO₂ datasets of Energi Data Service', () => {
  it('reads 5-minute values of both areas for the range asked, across the repeated hour of the autumn change', async () => {
    // 00:00 to 04:00 UTC is 02:00 (+02:00) to 05:00 (+01:00) Danish time: the 02 hour twice
    const rows = await co2.emissions(
      'CO2Emis',
      new Date('2026-10-25T00:00:00Z'),
      new Date('2026-10-25T04:00:00Z'),
    );
    expect(rows).toHaveLength(4 * 12 * 2);
    expect(rows[0]).toEqual({
      timeUtc: new Date('2026-10-25T00:00:00Z'),
      area: 'DK1',
      gKwh: String(generatedCo2(new Date('2026-10-25T00:00:00Z'))),
    });
    expect(new Set(rows.map((r) => r.timeUtc.toISOString())).size).toBe(48);
    const [req] = fake.co2Requests('CO2Emis');
    // asked in Danish wall time, an hour wider on either side
    expect(req!.query.get('start')).toBe('2026-10-25T01:00');
    expect(req!.query.get('end')).toBe('2026-10-25T06:00');
    expect(req!.query.get('sort')).toBe('Minutes5UTC asc');
    expect(JSON.parse(req!.query.get('filter')!)).toEqual({ PriceArea: ['DK1', 'DK2'] });
    expect(health.rejected).toBe(0);
  });

  it('drops and counts implausible values, instants off the 5-minute grid and rows outside the request', async () => {
    fake.co2.extra = [
      {
        Minutes5UTC: '2026-10-25T06:10:00',
        Minutes5DK: '2026-10-25T07:10:00',
        PriceArea: 'DK1',
        CO2Emission: 2400,
      },
      {
        Minutes5UTC: '2026-10-25T06:15:00',
        Minutes5DK: '2026-10-25T07:15:00',
        PriceArea: 'DK2',
        CO2Emission: -3,
      },
      {
        Minutes5UTC: '2026-10-25T06:12:00',
        Minutes5DK: '2026-10-25T07:12:00',
        PriceArea: 'DK1',
        CO2Emission: 80,
      },
      {
        Minutes5UTC: '2026-12-01T00:00:00',
        Minutes5DK: '2026-12-01T01:00:00',
        PriceArea: 'DK1',
        CO2Emission: 80,
      },
      // another area is not refused, only not ours; a missing value is a missing instant
      {
        Minutes5UTC: '2026-10-25T06:20:00',
        Minutes5DK: '2026-10-25T07:20:00',
        PriceArea: 'SE3',
        CO2Emission: 30,
      },
      {
        Minutes5UTC: '2026-10-25T06:25:00',
        Minutes5DK: '2026-10-25T07:25:00',
        PriceArea: 'DK1',
        CO2Emission: null,
      },
    ];
    fake.co2.value = () => null;
    const rows = await co2.emissions(
      'CO2Emis',
      new Date('2026-10-25T06:00:00Z'),
      new Date('2026-10-25T07:00:00Z'),
    );
    expect(rows).toEqual([]);
    expect(health.rejected).toBe(4);
    expect(health.lastRejected).toMatch(/^4 CO2Emis rows refused/);
    expect(health.ok).toBe(false);
    fake.co2.value = (t, d) => generatedCo2(t) + (d === 'CO2EmisProg' ? 7 : 0);
  });

  it('fails a malformed answer as a provider failure and says so in its feed', async () => {
    for (const body of [
      { records: [{ Minutes5UTC: '2026-10-25T06:00:00', PriceArea: 'DK1', CO2Emission: '81' }] },
      { records: [{ Minutes5UTC: '25/10/2026 06:00', PriceArea: 'DK1', CO2Emission: 81 }] },
      { records: [{ Minutes5UTC: '2026-10-25T06:00:00', CO2Emission: 81 }] },
      { rows: [] },
    ]) {
      fake.server.failNext({ kind: 'status', status: 200, json: body });
      const error = await co2
        .emissions('CO2EmisProg', new Date('2026-10-25T06:00:00Z'), new Date('2026-10-25T07:00:00Z'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toMatch(
        /^energidataservice: malformed answer: \/(records\/0(\/\w+)?)? must /,
      );
      expect(health.ok).toBe(false);
    }
    expect(() => parseCo2({ rows: [] })).toThrow(
      /malformed answer: \/ must have required properties records/,
    );
  });

  it('gives up on a provider slower than the timeout, after its retries', async () => {
    fake.server.failAlways({ kind: 'delay', ms: 800 });
    await expect(
      co2.emissions('CO2EmisProg', new Date('2026-10-25T06:00:00Z'), new Date('2026-10-25T07:00:00Z')),
    ).rejects.toThrow(/no answer within 500 ms/);
    expect(fake.co2Requests('CO2EmisProg')).toHaveLength(3);
    expect(health.ok).toBe(false);
  });

  it('retries a provider that fails, then reports the failure', async () => {
    fake.server.failNext({ kind: 'status', status: 503 }, 2);
    const rows = await co2.emissions(
      'CO2Emis',
      new Date('2026-10-25T06:00:00Z'),
      new Date('2026-10-25T06:30:00Z'),
    );
    expect(rows).toHaveLength(12);
    expect(fake.co2Requests('CO2Emis')).toHaveLength(3);
    expect(health.ok).toBe(true);

    fake.server.failAlways({ kind: 'status', status: 500 });
    await expect(
      co2.emissions('CO2Emis', new Date('2026-10-25T06:00:00Z'), new Date('2026-10-25T06:30:00Z')),
    ).rejects.toThrow(/HTTP 500/);
    expect(health.ok).toBe(false);
    expect(health.lastError).toMatch(/HTTP 500 from GET \/dataset\/CO2Emis/);
  });
});
