import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { generateEvents } from '../../../test/support/ledger-events.js';
import { ledgerOnly } from '../../../test/support/services.js';

/**
 * Paging and CSV for the ledger's lists: 3,300 generated
 * events, so 1,100 deposits and 1,100 buys, more than one page of every size a list allows.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ services: ledgerOnly(fakeRates()) });
  await generateEvents(t.db.database, 3300);
  for (const table of ['deposits', 'buys'])
    expect((await t.call('POST', `/api/${table}/rebuild`)).json()).toEqual({ rebuilt: 1100 });
});
afterAll(() => t.close());

type Row = Record<string, unknown> & { id: number; occurred_at: string };
interface Page {
  items: Row[];
  next_cursor: string | null;
}
const LISTS = ['/api/events', '/api/deposits', '/api/buys'] as const;
const COUNT = { '/api/events': 3300, '/api/deposits': 1100, '/api/buys': 1100 };

async function everyPage(list: string, query: string): Promise<{ rows: Row[]; pages: number }> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await t.call('GET', `${list}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<Page>();
    rows.push(...page.items);
    cursor = page.next_cursor;
    pages++;
  } while (cursor);
  return { rows, pages };
}

const ordered = (rows: Row[]) =>
  rows.every(
    (r, i) =>
      i === 0 ||
      rows[i - 1]!.occurred_at < r.occurred_at ||
      (rows[i - 1]!.occurred_at === r.occurred_at && rows[i - 1]!.id < r.id),
  );

describe('deposits and buys page like events', () => {
  it.each(LISTS)(
    '%s: 100 rows by default, at most 1000, {items, next_cursor}, every row once in order',
    async (list) => {
      const first = (await t.call('GET', list)).json<Page>();
      expect(first.items).toHaveLength(100);
      expect(first.next_cursor).toEqual(expect.any(String));
      const all = await everyPage(list, 'limit=1000');
      expect(all.rows).toHaveLength(COUNT[list]);
      expect(all.pages).toBe(Math.ceil(COUNT[list] / 1000));
      expect(new Set(all.rows.map((r) => r.id)).size).toBe(COUNT[list]);
      expect(ordered(all.rows)).toBe(true);
      // Small pages inside a range of days give the same rows as one large page.
      const small = await everyPage(list, 'limit=7&from=2020-03-01&to=2020-03-31');
      const large = (await t.call('GET', `${list}?limit=1000&from=2020-03-01&to=2020-03-31`)).json<Page>();
      expect(small.rows).toEqual(large.items);
      expect(large.next_cursor).toBeNull();
    },
  );

  it.each(LISTS)(
    '%s: refuses a limit outside 1..1000 and a cursor it did not give out, naming them',
    async (list) => {
      for (const [query, name] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=1.5', 'limit'],
        ['cursor=bm90IGEgY3Vyc29y', 'cursor'],
        [`cursor=${Buffer.from('["0000-01-01",1]').toString('base64url')}`, 'cursor'],
      ]) {
        const res = await t.call('GET', `${list}?${query}`);
        expect([query, res.statusCode]).toEqual([query, 400]);
        expect(res.json<{ detail: string }>().detail).toMatch(new RegExp(`querystring\\.${name}`));
      }
    },
  );
});

describe('?format=csv answers every row as text/csv', () => {
  it.each(LISTS)(
    '%s: RFC 4180 with a header of the JSON field names, dot decimals, across pages',
    async (list) => {
      const res = await t.call('GET', `${list}?format=csv`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.body.endsWith('\r\n')).toBe(true);
      const records = parse<Record<string, string>>(res.body, { columns: true });
      const json = (await everyPage(list, 'limit=1000')).rows;
      expect(records).toHaveLength(json.length);
      const header = res.body.slice(0, res.body.indexOf('\r\n')).split(',');
      for (const k of Object.keys(json.find((r) => Object.keys(r).length >= header.length) ?? json[0]!))
        expect(header).toContain(k);
      // Every field as the JSON gives it: numbers in plain digits, amounts as their exact decimal text.
      records.forEach((rec, i) => {
        for (const k of header) {
          const v = json[i]![k];
          expect([k, rec[k]]).toEqual([k, v === undefined || v === null ? '' : String(v as string | number)]);
        }
      });
      for (const rec of records)
        for (const [k, v] of Object.entries(rec))
          if (k.startsWith('amount')) expect(v).toMatch(/^(\d+(\.\d+)?)?$/);
    },
  );

  it('filters the CSV like the JSON, and refuses an unknown format naming it', async () => {
    const res = await t.call(
      'GET',
      '/api/events?format=csv&type=wallet_to_wallet&from=2020-01-01&to=2020-01-31',
    );
    const records = parse<Record<string, string>>(res.body, { columns: true });
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.type === 'wallet_to_wallet' && r.amount === '' && r.wallet === '')).toBe(
      true,
    );
    const bad = await t.call('GET', '/api/deposits?format=xml');
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ detail: string }>().detail).toMatch(/querystring\.format/);
  });

  it('/api/deposits/totals?format=csv answers the totals as text/csv, the same rows as the JSON', async () => {
    const json = (await t.call('GET', '/api/deposits/totals')).json<Record<string, unknown>[]>();
    const res = await t.call('GET', '/api/deposits/totals?format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="deposit-totals.csv"');
    expect(res.body.slice(0, res.body.indexOf('\r\n'))).toBe('wallet,currency,amount');
    const records = parse<Record<string, string>>(res.body, { columns: true });
    expect(json.length).toBeGreaterThan(0);
    expect(records).toEqual(
      json.map((r) => ({ wallet: String(r.wallet), currency: r.currency, amount: r.amount })),
    );
    expect((await t.call('GET', '/api/deposits/totals?format=xml')).statusCode).toBe(400);
  });

  it.each(['/api/events/1', '/api/wallets/1', '/health'])(
    '%s, a route with no CSV, refuses format=csv with a 400 naming format',
    async (path) => {
      const res = await t.call('GET', `${path}?format=csv`);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ detail: string }>().detail).toMatch(/^querystring\.format: /);
    },
  );
});
