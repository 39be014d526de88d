import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/http.js';
import { StrikeClient } from '../../src/providers/strike.js';
import { satsOf } from '../../src/btc/market/quotes.js';
import { FakeHttpServer } from '../fakes/http.js';
import { sharedFixture, sharedFixturesPresent, SHARED_FIXTURES_DIR } from '../fakes/shared-fixtures.js';
import { testDeps } from '../support/providers.js';
import { problemOf } from '../../src/http/problem.js';

if (!sharedFixturesPresent) console.log(`strike conformance skipped: ${SHARED_FIXTURES_DIR} is absent`);

describe.skipIf(!sharedFixturesPresent)('Strike adapter against the recorded answers', () => {
  let http: FakeHttpServer;
  let client: StrikeClient;
  beforeAll(async () => {
    http = await FakeHttpServer.start();
    client = new StrikeClient({ ...testDeps('strike'), baseUrl: http.url, apiKey: 'k', timeoutMs: 2_000 });
  });
  afterAll(() => http.close());

  it('reads the recorded rates ticker whole, in its order', async () => {
    const recorded = sharedFixture<unknown[]>('strike/rates_ticker_2022-11-04_chmoder.json');
    http.on('GET', '/v1/rates/ticker', { json: recorded });
    const rates = await client.ticker();
    expect(rates).toEqual(recorded);
    expect(http.requests.at(-1)?.headers.authorization).toBe('Bearer k');
  });

  it('sends the documented quote request and reads the documented answer', async () => {
    http.on('POST', '/v1/currency-exchange-quotes', {
      json: sharedFixture('strike/SYNTHETIC_currency_exchange_quote_response_per_docs_schema.json'),
    });
    const q = await client.quote({
      sell: 'EUR',
      buy: 'BTC',
      amount: '54.45',
      currency: 'EUR',
      feePolicy: 'EXCLUSIVE',
    });
    const sent = http.requests.at(-1)!;
    expect(sent.json()).toEqual(
      sharedFixture('strike/SYNTHETIC_currency_exchange_quote_request_EUR_BTC_exclusive_prefee.json'),
    );
    expect(sent.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(q.fee).toEqual({ amount: '0.55', currency: 'EUR' });
    expect(satsOf(q)).toBe(59_895);
  });

  it.each([
    ['strike/error_401_SHAPE.json', 401, 502],
    ['strike/error_404_not_found_chmoder.json', 404, 502],
    ['strike/error_400_validation_SHAPE_from_Strike.Client_tests.json', 400, 502],
  ])('turns %s into a ProviderError naming the provider', async (file, status, answer) => {
    http.failNext({ kind: 'status', status, json: sharedFixture(file) });
    const e = await client.ticker().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).status).toBe(status);
    expect(problemOf(e)).toMatchObject({
      status: answer,
      detail: expect.stringMatching(/strike/),
    });
  });
});
