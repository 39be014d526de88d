import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrankfurterClient, crossRate } from '../../src/providers/frankfurter.js';
import { ProviderError } from '../../src/providers/http.js';
import { FakeHttpServer } from '../fakes/http.js';
import { SHARED_FIXTURES_DIR, sharedFixture, sharedFixturesPresent } from '../fakes/shared-fixtures.js';
import { testDeps } from '../support/providers.js';

if (!sharedFixturesPresent) console.log(`conformance/frankfurter: ${SHARED_FIXTURES_DIR} is absent; skipped`);

interface Recorded {
  base: string;
  date: string;
  rates: Record<string, number>;
}

describe.skipIf(!sharedFixturesPresent)('Frankfurter v1 recorded answers through the adapter', () => {
  let fake: FakeHttpServer;
  let client: FrankfurterClient;
  /** The file the fake serves for the next request. */
  let serving = '';
  let status = 200;

  beforeAll(async () => {
    fake = await FakeHttpServer.start();
    fake.on('GET', /^\/v1\//, () => ({ status, json: sharedFixture(`frankfurter/${serving}`) }));
    client = new FrankfurterClient({
      ...testDeps('frankfurter'),
      baseUrl: fake.url,
      timeoutMs: 1000,
      retries: 0,
    });
  });
  afterAll(() => fake.close());

  const recorded = sharedFixturesPresent
    ? readdirSync(`${SHARED_FIXTURES_DIR}/frankfurter`).filter((f) => /^v1_.*_recorded\.json$/.test(f))
    : [];

  it('finds the recorded v1 answers', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(4);
  });

  it.each(recorded)('parses %s exactly as recorded', async (file) => {
    serving = file;
    status = 200;
    const want = sharedFixture<Recorded>(`frankfurter/${file}`);
    const day = /^v1_(\d{4}-\d{2}-\d{2})_/.exec(file)?.[1] ?? 'latest';
    const got = await client.v1(day, 'USD', Object.keys(want.rates));
    expect(got.base).toBe('USD');
    expect(got.date).toBe(want.date);
    expect(Object.keys(got.rates)).toEqual(Object.keys(want.rates));
    for (const [code, value] of Object.entries(want.rates)) expect(Number(got.rates[code])).toBe(value);
  });

  it('carries a Sunday request to the Friday the answer names', async () => {
    serving = 'v1_2026-03-15_SUNDAY_request_returns_2026-03-13_recorded.json';
    status = 200;
    expect((await client.v1('2026-03-15', 'USD', ['EUR'])).date).toBe('2026-03-13');
    expect(fake.requests.at(-1)?.path).toBe('/v1/2026-03-15');
  });

  it('computes the EUR/DKK cross from the recorded USD-based answer that has both', async () => {
    serving = 'v1_2025-04-11_base-USD_allcurrencies_TRIMMED_recorded.json';
    status = 200;
    const r = await client.usdRates('2025-04-11');
    expect(r).toEqual({
      rates_date: '2025-04-11',
      usd_eur: '0.88137',
      usd_dkk: '6.5816',
      eur_dkk: crossRate('0.88137', '6.5816'),
    });
    expect(Number(r.eur_dkk)).toBeCloseTo(7.467465, 6);
  });

  it('refuses an answer without DKK for the daily record', async () => {
    serving = 'v1_2026-03-13_base-USD_symbols-EUR_recorded.json';
    status = 200;
    await expect(client.usdRates('2026-03-13')).rejects.toThrow(/lacks USD-based EUR and DKK/);
  });

  it.each([
    ['v1_error_404_not_found.json', 404],
    ['v1_error_422_bad_currency_pair.json', 422],
  ])('turns %s into a provider error with status %i', async (file, code) => {
    serving = file;
    status = code;
    const e = await client.usdRates('2026-03-13').catch((err: unknown) => err as ProviderError);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).status).toBe(code);
    expect((e as ProviderError).message).toContain(JSON.stringify(sharedFixture(`frankfurter/${file}`)));
  });
});
