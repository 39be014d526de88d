import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatRates } from '../../../test/fakes/rates.js';
import { startTestApp } from '../../../test/support/app.js';
import { btc } from '../../../test/support/services.js';

// EUR/DKK 7.5 on every day, so a day's BTC price in DKK is its candle's vwap × 7.5.
const rates = flatRates;

const TOKEN = 'tax-test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const BTC = 100_000_000;
// The fresh database's wallets: 1 Kraken (exchange), 4 Trezor, 5 Ledger, 6 Coldcard, 7 Paper wallet.
const KRAKEN = 1;
const TREZOR = 4;
const LEDGER = 5;
const COLDCARD = 6;
const PAPER = 7;

async function ledgerApp(env: Record<string, string> = {}, now = '2025-12-31T12:00:00Z') {
  const t = await startTestApp({
    now,
    env: { API_TOKEN: TOKEN, ...env },
    services: btc({ rates, only: ['ledger', 'tax'] }),
  });
  const call = async (method: string, url: string, body?: unknown) => t.call(method, url, body, auth);
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await call(method, url, body);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json<Record<string, unknown> & { id: number }>();
  };
  return {
    t,
    call,
    ok,
    owner: (wallet: number, owner: string) => ok('PATCH', `/api/wallets/${wallet}`, { owner }),
    buy: (occurred_at: string, to: number, sats: number, amount: string, currency = 'DKK') =>
      ok('POST', '/api/events', {
        type: 'exchange_to_wallet',
        occurred_at,
        from_wallet: KRAKEN,
        to_wallet: to,
        sats,
        fee_sats: 0,
        amount,
        currency,
      }),
    move: (occurred_at: string, from: number, to: number, sats: number, fee_sats: number) =>
      ok('POST', '/api/events', {
        type: 'wallet_to_wallet',
        occurred_at,
        from_wallet: from,
        to_wallet: to,
        sats,
        fee_sats,
      }),
    candle: (day: string, vwap: string) =>
      sql`insert into btc.candles_day (pair, time, open, high, low, close, vwap, volume, trades)
        values ('BTC/EUR', ${`${day}T00:00:00Z`}::timestamptz, ${vwap}, ${vwap}, ${vwap}, ${vwap}, ${vwap}, 1, 1)
        on conflict (pair, time) do update set vwap = excluded.vwap`.execute(t.db.database.db),
  };
}

describe('wallet owners', () => {
  let app: Awaited<ReturnType<typeof ledgerApp>>;
  beforeAll(async () => {
    app = await ledgerApp();
  });
  afterAll(() => app.t.close());

  it('gives every wallet of a fresh database the default owner, a new one too, and changes it by PATCH', async () => {
    const wallets = (await app.call('GET', '/api/wallets')).json<{ owner: string }[]>();
    expect(wallets).toHaveLength(7);
    expect(wallets.every((w) => w.owner === 'household')).toBe(true);
    expect(await app.ok('POST', '/api/wallets', { name: 'Bitbox', wallet_type: 'wallet' })).toMatchObject({
      owner: 'household',
    });
    const made = await app.ok('POST', '/api/wallets', { name: 'Jade', wallet_type: 'wallet', owner: 'Bo' });
    expect(made).toMatchObject({ name: 'Jade', owner: 'Bo' });
    expect(await app.owner(made.id, 'Anna')).toMatchObject({ id: made.id, name: 'Jade', owner: 'Anna' });
    expect((await app.call('GET', `/api/wallets/${made.id}`)).json()).toMatchObject({ owner: 'Anna' });
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(41)],
    ['a comma', 'Anna,Bo'],
    ['an equals sign', 'Anna=Bo'],
    ['a control character', 'An\u0007na'],
  ])('refuses an owner that is %s, naming the field and writing nothing', async (_, owner) => {
    const res = await app.call('PATCH', `/api/wallets/${TREZOR}`, { owner });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toMatch(/owner/);
    expect((await app.call('GET', `/api/wallets/${TREZOR}`)).json()).toMatchObject({ owner: 'household' });
  });
});

describe('the FIFO figures of owners who are not spouses', () => {
  let app: Awaited<ReturnType<typeof ledgerApp>>;
  beforeAll(async () => {
    app = await ledgerApp();
    for (const w of [KRAKEN, TREZOR, LEDGER]) await app.owner(w, 'Anna');
    for (const w of [COLDCARD, PAPER]) await app.owner(w, 'Bo');
    // SKAT's example: 1 BTC for 300,000 DKK, another for 330,000, in two of Anna's wallets.
    await app.buy('2025-01-10', TREZOR, BTC, '300000'); // event 1
    await app.buy('2025-02-10', LEDGER, BTC, '330000'); // event 2
    // Half a BTC given to Bo (not her spouse), fee 1,000 sats, on a day of 45,600 EUR × 7.5 = 342,000 DKK.
    await app.candle('2025-03-10', '45600');
    await app.move('2025-03-10', TREZOR, COLDCARD, BTC / 2, 1_000); // event 3
    // A move between Anna's own wallets, fee 2,000 sats at 50,000 × 7.5 = 375,000 DKK.
    await app.candle('2025-04-01', '50000');
    await app.move('2025-04-01', LEDGER, TREZOR, BTC / 10, 2_000); // event 4
    // Bo's own purchase, and a move between his wallets, fee 5,000 sats at 60,000 × 7.5 = 450,000.
    await app.buy('2025-05-01', COLDCARD, BTC / 10, '40000'); // event 5
    await app.candle('2025-06-01', '60000');
    await app.move('2025-06-01', COLDCARD, PAPER, BTC / 20, 5_000); // event 6
  });
  afterAll(() => app.t.close());

  it("makes the gift a disposal at the day's value drawn on Anna's oldest lot, and the own move's fee one of its own", async () => {
    const res = await app.call('GET', '/api/tax/2025?owner=Anna');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      year: 2025,
      owner: 'Anna',
      method: 'fifo',
      currency: 'DKK',
      disposals: [
        {
          event_id: 3,
          occurred_at: '2025-03-10',
          type: 'gift',
          sats: 50_001_000,
          fee_sats: 1_000,
          // 0.5 BTC × 342,000; the cost 300,000 × 0.50001.
          proceeds_dkk: '171000.00',
          cost_dkk: '150003.00',
          gain_dkk: '20997.00',
          lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: 50_001_000, cost_dkk: '150003.00' }],
        },
        {
          event_id: 4,
          occurred_at: '2025-04-01',
          type: 'fee',
          sats: 2_000,
          fee_sats: 2_000,
          // 0.00002 BTC × 375,000; the cost: round(300,000 × 0.50003) − 150,003.00, from the Trezor's lot
          // although the sats left the Ledger.
          proceeds_dkk: '7.50',
          cost_dkk: '6.00',
          gain_dkk: '1.50',
          lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: 2_000, cost_dkk: '6.00' }],
        },
      ],
      income: [],
      gains_dkk: '20998.50',
      losses_dkk: '0.00',
      income_dkk: '0.00',
      rubrik_20_dkk: '20998.50',
      rubrik_58_dkk: '0.00',
      unknown_cost: [],
      complete: true,
    });
  });

  it("keeps Bo's pool apart: his fee draws on the gift's lot at its value, never on Anna's", async () => {
    const y = (await app.call('GET', '/api/tax/2025?owner=Bo')).json<Record<string, unknown>>();
    expect(y.disposals).toEqual([
      {
        event_id: 6,
        occurred_at: '2025-06-01',
        type: 'fee',
        sats: 5_000,
        fee_sats: 5_000,
        proceeds_dkk: '22.50',
        cost_dkk: '17.10',
        gain_dkk: '5.40',
        lots: [{ event_id: 3, occurred_at: '2025-03-10', sats: 5_000, cost_dkk: '17.10' }],
      },
    ]);
    expect(y).toMatchObject({ gains_dkk: '5.40', rubrik_20_dkk: '5.40', complete: true });
  });

  it('answers the open lots of each owner across their wallets, and as of a day', async () => {
    const lots = (await app.call('GET', '/api/lots')).json<Record<string, unknown>>();
    expect(lots).toEqual({
      owner: null,
      at: '2025-12-31',
      sats: 2 * BTC - 1_000 - 2_000 - 5_000 + BTC / 10,
      cost_dkk: '690973.90',
      lots: [
        { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: 49_997_000, cost_dkk: '149991.00' },
        { owner: 'Anna', event_id: 2, occurred_at: '2025-02-10', sats: BTC, cost_dkk: '330000.00' },
        { owner: 'Bo', event_id: 3, occurred_at: '2025-03-10', sats: 49_995_000, cost_dkk: '170982.90' },
        { owner: 'Bo', event_id: 5, occurred_at: '2025-05-01', sats: BTC / 10, cost_dkk: '40000.00' },
      ],
    });
    const before = (await app.call('GET', '/api/lots?owner=Anna&at=2025-03-09')).json();
    expect(before).toEqual({
      owner: 'Anna',
      at: '2025-03-09',
      sats: 2 * BTC,
      cost_dkk: '630000.00',
      lots: [
        { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: BTC, cost_dkk: '300000.00' },
        { owner: 'Anna', event_id: 2, occurred_at: '2025-02-10', sats: BTC, cost_dkk: '330000.00' },
      ],
    });
  });

  it("keeps the day's price it first used: a candle answered differently later changes no figure", async () => {
    const first = (await app.call('GET', '/api/tax/2025?owner=Anna')).body;
    const stored = await sql<{ date: string; btc_dkk: string }>`
      select to_char(date, 'YYYY-MM-DD') as date, btc_dkk::text from btc.tax_day_prices order by date`.execute(
      app.t.db.database.db,
    );
    expect(stored.rows.map((r) => [r.date, Number(r.btc_dkk)])).toEqual([
      ['2025-03-10', 342_000],
      ['2025-04-01', 375_000],
      ['2025-06-01', 450_000],
    ]);
    await app.candle('2025-03-10', '99999');
    expect((await app.call('GET', '/api/tax/2025?owner=Anna')).body).toBe(first);
  });

  it('writes one line per disposal for a Danish spreadsheet', async () => {
    const res = await app.call('GET', '/api/tax/2025?owner=Anna&format=csv&csv_locale=da');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.body.replace(/^\uFEFF/, '').split('\r\n')).toEqual([
      'event_id;occurred_at;type;sats;fee_sats;proceeds_dkk;cost_dkk;gain_dkk;income_dkk;lots',
      '3;2025-03-10;gift;50001000;1000;171000,00;150003,00;20997,00;;1:50001000',
      '4;2025-04-01;fee;2000;2000;7,50;6,00;1,50;;1:2000',
      '',
    ]);
  });

  it.each([
    ['/api/tax/2025?owner=Carl', /querystring\.owner: no wallet is owned by "Carl"; the owners are Anna, Bo/],
    ['/api/tax/2025', /querystring\.owner: required, the wallets have 3 owners: Anna, Bo, household/],
    ['/api/tax/2008?owner=Anna', /year/],
    ['/api/tax/2026?owner=Anna', /params\.year: 2026 is not a year from 2009 to 2025/],
    ['/api/tax/twenty?owner=Anna', /year/],
    ['/api/lots?owner=Carl', /no wallet is owned by "Carl"/],
    ['/api/lots?at=2026-01-01', /querystring\.at: 2026-01-01 is in the future/],
    ['/api/lots?at=2025-02-30', /at/],
    ['/api/lots?at=yesterday', /at/],
    ['/api/lots?since=2025-01-01', /since/],
  ])('refuses %s with a 400 naming the problem', async (url, detail) => {
    const res = await app.call('GET', url);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ detail: string }>().detail).toMatch(detail);
  });

  it('needs the token', async () => {
    expect((await app.t.call('GET', '/api/tax/2025?owner=Anna')).statusCode).toBe(401);
    expect((await app.t.call('GET', '/api/lots')).statusCode).toBe(401);
  });
});

describe('spouses and missing prices', () => {
  let app: Awaited<ReturnType<typeof ledgerApp>>;
  beforeAll(async () => {
    app = await ledgerApp({ TAX_SPOUSES: 'Anna=Bo' });
    for (const w of [TREZOR, LEDGER]) await app.owner(w, 'Anna');
    for (const w of [COLDCARD, PAPER]) await app.owner(w, 'Bo');
    await app.buy('2025-01-10', TREZOR, BTC, '300000'); // event 1
    await app.buy('2025-02-10', LEDGER, BTC, '330000'); // event 2
    await app.candle('2025-03-10', '45600');
    await app.move('2025-03-10', TREZOR, COLDCARD, BTC / 2, 1_000); // event 3
  });
  afterAll(() => app.t.close());

  it("lets Bo take over Anna's lot with its cost and date; only the fee is her disposal", async () => {
    const anna = (await app.call('GET', '/api/tax/2025?owner=Anna')).json<Record<string, unknown>>();
    expect(anna.disposals).toEqual([
      {
        event_id: 3,
        occurred_at: '2025-03-10',
        type: 'fee',
        sats: 1_000,
        fee_sats: 1_000,
        // 0.00001 × 342,000; round(300,000 × 0.50001) − round(300,000 × 0.5).
        proceeds_dkk: '3.42',
        cost_dkk: '3.00',
        gain_dkk: '0.42',
        lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: 1_000, cost_dkk: '3.00' }],
      },
    ]);
    expect((await app.call('GET', '/api/lots?owner=Bo')).json()).toMatchObject({
      lots: [{ owner: 'Bo', event_id: 1, occurred_at: '2025-01-10', sats: BTC / 2, cost_dkk: '150000.00' }],
    });
  });

  it('refuses with a 503 naming the day whose price is missing, and answers once its candle is stored', async () => {
    await app.move('2025-05-05', LEDGER, TREZOR, 1_000_000, 700); // event 4
    for (const url of ['/api/tax/2025?owner=Anna', '/api/lots']) {
      const res = await app.call('GET', url);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json<{ detail: string }>().detail).toMatch(
        /no BTC\/EUR daily candle is stored for 2025-05-05/,
      );
    }
    // A year before the day needs no price of it.
    expect((await app.call('GET', '/api/lots?at=2025-05-04')).statusCode).toBe(200);
    await app.candle('2025-05-05', '40000');
    const anna = (await app.call('GET', '/api/tax/2025?owner=Anna')).json<{ disposals: unknown[] }>();
    // 700 sats at 300,000 DKK/BTC = 2.10; their cost 2.10 too (round(300,000 × 0.50002)) − 150,003.00).
    expect(anna.disposals[1]).toMatchObject({
      event_id: 4,
      proceeds_dkk: '2.10',
      cost_dkk: '2.10',
      gain_dkk: '0.00',
    });
  });

  it("values today's move at its candle so far without storing it", async () => {
    app.t.clock.set('2025-12-31T12:00:00Z');
    await app.candle('2025-12-31', '80000');
    await app.move('2025-12-31', TREZOR, LEDGER, 1_000_000, 1_000); // event 5
    const anna = (await app.call('GET', '/api/tax/2025?owner=Anna')).json<{ disposals: unknown[] }>();
    // 1,000 sats at 600,000 DKK/BTC.
    expect(anna.disposals[2]).toMatchObject({ event_id: 5, proceeds_dkk: '6.00' });
    const stored = await sql`select 1 from btc.tax_day_prices where date = '2025-12-31'`.execute(
      app.t.db.database.db,
    );
    expect(stored.rows).toEqual([]);
  });
});
