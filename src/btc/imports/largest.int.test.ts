import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerAndImports } from '../../../test/support/services.js';
import { addDays } from '../../shared/danish-time.js';
import { IMPORT_MAX_BYTES } from './schemas.js';

/**
 * LARGEST INPUT, SLOW: imports of exactly as many bytes as POST /api/imports takes (16 MiB), in
 * the shortest lines, so the most rows each writer of an import ever gets: one-line CSV events
 * (events, references, wallet days, ledger rates of 6,000 days) and Kraken trades (purchase
 * lots, and one withdrawal allocated from every one of them). Generated here, not checked in.
 * About two minutes and one on PGlite on 2 shared cores: far past REQUEST_TIMEOUT_MS's default,
 * which the app is given room beyond.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: '600000' }, services: ledgerAndImports(fakeRates()) });
});
afterAll(() => t.close());

/** Lines under a header, as many as fit in IMPORT_MAX_BYTES with the last line after them. */
function file(
  header: string,
  line: (i: number) => string,
  last?: (n: number) => string,
): { body: string; n: number } {
  const lines = [header];
  let bytes = header.length;
  const room = last ? last(10 ** 9).length + 1 : 0;
  for (let i = 0; ; i++) {
    const next = line(i);
    if (bytes + 1 + next.length + room > IMPORT_MAX_BYTES) break;
    lines.push(next);
    bytes += 1 + next.length;
  }
  const n = lines.length - 1;
  if (last) lines.push(last(n));
  return { body: lines.join('\n'), n };
}

const post = (query: string, body: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/imports?${query}`,
    headers: { 'content-type': 'text/csv' },
    payload: body,
  });

const rows = async (table: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(t.db.database.db))
    .rows[0]!.n;

/** What went wrong before: everything answered empty or 500 after such an import. */
async function expectAnswering() {
  expect((await t.call('GET', '/health')).json().status).toBe('ok');
  const wallets = await t.call('GET', '/api/wallets');
  expect(wallets.statusCode).toBe(200);
  expect(wallets.json().length).toBeGreaterThanOrEqual(7);
  const events = await t.call('GET', '/api/events?limit=5');
  expect(events.statusCode).toBe(200);
  expect(events.json().items).toHaveLength(5);
}

describe('an import at the 16 MiB body limit (largest input, slow)', () => {
  it('one-line CSV events: all stored, and the ledger answers afterwards', { timeout: 900_000 }, async () => {
    const { body, n } = file(
      'date,type,sats,fee_sats,amount,currency,reference',
      (i) => `${addDays('2009-01-03', i % 6000)},bank_to_exchange,,,1.00,EUR,r${i}`,
    );
    expect(Buffer.byteLength(body)).toBeGreaterThan(IMPORT_MAX_BYTES - 100);
    const res = await post('source=csv&exchange=1', body);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(201);
    expect(res.json().created).toBe(n);
    expect(n).toBeGreaterThan(350_000);
    expect(await rows('btc.events')).toBe(n);
    expect(await rows('btc.imported_events')).toBe(n);
    expect(await rows('btc.ledger_rates')).toBe(6000);
    await expectAnswering();
    const rebuilt = await t.call('POST', '/api/deposits/rebuild');
    expect(rebuilt.json()).toEqual({ rebuilt: n });
  });

  it(
    'Kraken trades and one withdrawal from all of them: every lot and allocation stored',
    { timeout: 900_000 },
    async () => {
      const minute = (i: number) =>
        new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().slice(0, 19).replace('T', ' ');
      const { body, n } = file(
        'txid,refid,time,type,asset,amount,fee',
        (i) => `A${i},T${i},${minute(i)},trade,ZEUR,-1.00,0\nB${i},T${i},${minute(i)},trade,XXBT,0.00001,0`,
        (trades) => `W1,AW1,2026-07-01 10:00:00,withdrawal,XXBT,-${(trades / 100_000).toFixed(8)},0`,
      );
      expect(Buffer.byteLength(body)).toBeGreaterThan(IMPORT_MAX_BYTES - 200);
      const res = await post('source=kraken&exchange=1&to_wallet=4', body);
      expect(res.statusCode, res.body.slice(0, 500)).toBe(201);
      const answer = res.json();
      expect(answer.lots).toHaveLength(n);
      expect(n).toBeGreaterThan(150_000);
      expect(answer.events.map((e: { type: string; sats: number }) => [e.type, e.sats])).toEqual([
        ['exchange_to_wallet', n * 1000],
      ]);
      expect(await rows('btc.purchase_lots')).toBe(n);
      expect(await rows('btc.lot_allocations')).toBe(n);
      await expectAnswering();
      const trezor = (await t.call('GET', '/api/wallets')).json().find((w: { id: number }) => w.id === 4);
      expect(trezor.balance).toBe(n * 1000);
    },
  );
});
