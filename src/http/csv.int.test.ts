import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { generateEvents } from '../../test/support/ledger-events.js';
import { ledgerOnly } from '../../test/support/services.js';

type Doc = {
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>
  >;
};

let full: TestApp;
let ledger: TestApp;
beforeAll(async () => {
  [full, ledger] = await Promise.all([startTestApp(), startTestApp({ services: ledgerOnly(fakeRates()) })]);
  await generateEvents(ledger.db.database, 30);
  expect((await ledger.call('POST', '/api/deposits/rebuild')).statusCode).toBe(200);
});
afterAll(() => Promise.all([full.close(), ledger.close()]));

/** A Danish export read back, its decimal commas made dots again, beside the RFC 4180 one. */
async function bothDialects(path: string) {
  const plain = await ledger.call('GET', `${path}?format=csv`);
  const da = await ledger.call('GET', `${path}?format=csv&csv_locale=da`);
  expect(da.statusCode, da.body).toBe(200);
  expect(da.headers['content-type']).toBe('text/csv; charset=utf-8');
  return {
    plain: parse<Record<string, string>>(plain.body, { columns: true }),
    da: parse<Record<string, string>>(da.body, { columns: true, delimiter: ';', bom: true }),
    body: da.body,
  };
}

describe('csv_locale=da: CSV for Danish spreadsheets', () => {
  it('is offered by every route that answers CSV', async () => {
    const doc = (await full.call('GET', '/openapi.json')).json<Doc>();
    const csvRoutes = Object.entries(doc.paths).filter(([, ops]) =>
      JSON.stringify(ops.get?.responses['200'] ?? '').includes('text/csv'),
    );
    expect(csvRoutes.length).toBeGreaterThanOrEqual(11);
    for (const [path, ops] of csvRoutes) {
      const query = (ops.get!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect([path, query]).toEqual([path, expect.arrayContaining(['format', 'csv_locale'])]);
    }
  });

  it('separates fields with ";", writes decimals with a comma and starts with a byte-order mark', async () => {
    const { plain, da, body } = await bothDialects('/api/deposits');
    expect(body.startsWith('\uFEFFid;event_id;occurred_at;wallet;currency;amount;amount_eur;')).toBe(true);
    expect(da).toHaveLength(10);
    expect(da.some((r) => r.amount!.includes(','))).toBe(true);
    const undone = da.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, k.startsWith('amount') ? v.replace(',', '.') : v]),
      ),
    );
    expect(undone).toEqual(plain);
    // dates and ids are no decimals: left as they are
    expect(da.map((r) => [r.id, r.occurred_at])).toEqual(plain.map((r) => [r.id, r.occurred_at]));
  });

  it('does the same for the deposit totals', async () => {
    const { plain, da } = await bothDialects('/api/deposits/totals');
    expect(da.map((r) => ({ ...r, amount: r.amount!.replace(',', '.') }))).toEqual(plain);
  });

  it('is a 400 naming csv_locale for another locale and where no CSV is served; JSON is the same with it', async () => {
    for (const url of ['/api/deposits?format=csv&csv_locale=en', '/api/wallets/1?csv_locale=da']) {
      const res = await ledger.call('GET', url);
      expect([url, res.statusCode]).toEqual([url, 400]);
      expect(res.json<{ detail: string }>().detail).toMatch(/^querystring\.csv_locale/);
    }
    const json = await ledger.call('GET', '/api/deposits');
    for (const url of ['/api/deposits?csv_locale=da', '/api/deposits?format=json&csv_locale=da'])
      expect((await ledger.call('GET', url)).body).toBe(json.body);
  });
});
