import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EloverblikClient } from '../../src/providers/eloverblik.js';
import { FakeHttpServer } from '../fakes/http.js';
import { SHARED_FIXTURES_DIR, sharedFixture, sharedFixturesPresent } from '../fakes/shared-fixtures.js';
import { testDeps } from '../support/providers.js';

if (!sharedFixturesPresent) console.log(`eloverblik conformance skipped: ${SHARED_FIXTURES_DIR} is absent`);

const F = (name: string) => sharedFixture(`eloverblik/${name}`);
const REFRESH = 'recorded-refresh-token';

/** The recorded Eloverblik answers, replayed through the real adapter over a socket. */
describe.skipIf(!sharedFixturesPresent)('Eloverblik adapter on recorded answers', () => {
  let server: FakeHttpServer;
  let client: EloverblikClient;
  let timeseries: unknown;

  beforeAll(async () => {
    server = await FakeHttpServer.start();
    const token = F('token_response_SHAPE.json') as { result: string };
    const unauthorized = F('error_401_body_string_SHAPE_from_go-eloverblik_test.json');
    server.on('GET', '/customerapi/api/token', (req) =>
      req.headers.authorization === `Bearer ${REFRESH}`
        ? { json: token }
        : { status: 401, json: unauthorized },
    );
    const guarded = (body: unknown) => (req: { headers: { authorization?: string } }) =>
      req.headers.authorization === `Bearer ${token.result}`
        ? { json: body }
        : { status: 401, json: unauthorized };
    server.on(
      'GET',
      '/customerapi/api/meteringpoints/meteringpoints',
      guarded(F('meteringpoints_E17_with_D06_D07_D14_children_E18_recorded_REDACTED.json')),
    );
    server.on('POST', /\/gettimeseries\//, () => ({ json: timeseries }));
    server.on(
      'POST',
      '/customerapi/api/meteringpoints/meteringpoint/getcharges',
      guarded(F('getcharges_radius_2022_values_RECONSTRUCTED_envelope.json')),
    );
    client = new EloverblikClient({
      ...testDeps('eloverblik'),
      tokenBudget: testDeps('eloverblik-token').budget,
      baseUrl: server.url,
      timeoutMs: 2000,
      refreshToken: async () => REFRESH,
      sleep: async () => {},
    });
  });
  afterAll(() => server.close());

  it('parses the recorded metering points with D06, D07 and D14 children and an E18', async () => {
    const points = await client.meteringPoints();
    expect(points.map((p) => p.type)).toEqual(['E18', 'E17']);
    expect(points[1]!.children.map((c) => c.type)).toEqual(['D07', 'D06', 'D14']);
    expect(points[1]!.children.every((c) => c.parentId === points[1]!.id)).toBe(true);
    expect(points.every((p) => /^\d{18}$/.test(p.id))).toBe(true);
  });

  it('parses the recorded 6-point time series with dotted keys into hourly points', async () => {
    timeseries = F('gettimeseries_hour_2024-02-18_6mps_recorded.json');
    const series = await client.timeSeries(['571313174001765605'], '2024-02-18', '2024-02-19');
    expect(series).toHaveLength(6);
    const d07 = series.find((s) => s.meteringPointId === '571313174001765605')!;
    expect(d07.businessType).toBe('A04');
    expect(d07.unit).toBe('KWH');
    const points = d07.periods[0]!.points;
    expect(points).toHaveLength(24);
    expect(points[0]!.start).toEqual(new Date('2024-02-17T23:00:00Z'));
    expect(points[23]!.start).toEqual(new Date('2024-02-18T22:00:00Z'));
    expect(points.every((p) => p.quality === 'A04' && /^\d+\.\d+$/.test(p.quantityKwh))).toBe(true);
    expect(series.filter((s) => s.businessType === 'A01')).toHaveLength(2);
  });

  it('parses the truncated 2022 answer, which lacks the per-item status fields', async () => {
    timeseries = F('gettimeseries_hour_2022-10-14_firstday_TRUNCATED_recorded.json');
    const [series] = await client.timeSeries(['x'], '2022-10-14', '2022-10-15');
    const points = series!.periods[0]!.points;
    expect(points).toHaveLength(24);
    expect(points[0]).toMatchObject({ quantityKwh: '0.188', start: new Date('2022-10-13T22:00:00Z') });
  });

  it('parses the charges with the subscription and the hourly tariff positions', async () => {
    const [charges] = await client.charges(['571313100000000000']);
    const kinds = charges!.charges.map((c) => c.kind);
    expect(kinds.filter((k) => k === 'subscription')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'tariff')).toHaveLength(5);
    const hourly = charges!.charges.find((c) => c.periodType === 'PT1H')!;
    expect(hourly.prices).toHaveLength(24);
    expect(hourly.prices[17]).toEqual({ position: 18, priceDkk: '0.7885' });
  });

  it('reports the recorded 401 body of a refused refresh token', async () => {
    const refused = new EloverblikClient({
      ...testDeps('eloverblik'),
      tokenBudget: testDeps('eloverblik-token').budget,
      baseUrl: server.url,
      timeoutMs: 2000,
      refreshToken: async () => 'not-the-token',
    });
    await expect(refused.meteringPoints()).rejects.toThrow('the refresh token was refused (HTTP 401)');
  });
});
