import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFrankfurter } from '../../../test/fakes/frankfurter.js';
import type { FakeHttpServer } from '../../../test/fakes/http.js';
import { dailyHistory, KRAKEN_HEADER, krakenLines } from '../../../test/fakes/kraken-ledger.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { btcOnly } from '../../../test/support/services.js';
import { createLedgerFeature, ledgerServiceOf } from '../ledger/index.js';
import { createRatesService } from '../rates/index.js';
import type { Rates } from '../rates/service.js';
import { createImportsFeature } from './index.js';

/**
 * A long history's first import asks the rates provider for its days in a few time-series
 * calls, not one a day, and the ledger's rebuild does the same.
 */
const TOKEN = 'imports-rates-token-0123456789';
const DAYS = 700;
let fake: FakeHttpServer;
let t: TestApp;
let rates: Rates;

beforeAll(async () => {
  fake = await startFakeFrankfurter({ latest: '2026-07-03' });
  t = await startTestApp({
    env: { API_TOKEN: TOKEN, RATES_FEED_URL: fake.url },
    services: btcOnly((ctx) => {
      rates = createRatesService(ctx);
      return [createLedgerFeature(ctx, { rates }), createImportsFeature(ctx, { rates })];
    }),
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const count = async (table: 'btc.currency_rates' | 'btc.ledger_rates') =>
  Number(
    (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(t.db.database.db))
      .rows[0]!.n,
  );

describe(`a Kraken export of ${DAYS} days into a ledger without rates`, () => {
  it('is imported with two Frankfurter calls, a year each, storing every day it needs', async () => {
    const text = [KRAKEN_HEADER, ...krakenLines(dailyHistory(DAYS), 'long-')].join('\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/imports?source=kraken&exchange=1&to_wallet=4',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' },
      payload: text,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().events.length).toBeGreaterThan(DAYS);
    // 2019-01-01 .. 2020-11-30: 2019-01-01..2020-01-01 (366 days) and the rest.
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/2019-01-01..2020-01-01',
      '/v1/2020-01-02..2020-11-30',
    ]);
    expect(await count('btc.currency_rates')).toBe(DAYS);
    expect(await count('btc.ledger_rates')).toBe(DAYS);
  });

  it('is rebuilt after the rates are gone with two calls again', async () => {
    fake.requests.length = 0;
    await sql`truncate btc.ledger_rates, btc.currency_rates`.execute(t.db.database.db);
    await ledgerServiceOf(t.ctx, rates).rebuild('deposits');
    expect(fake.requests).toHaveLength(2);
    expect(await count('btc.ledger_rates')).toBe(DAYS);
  });
});
