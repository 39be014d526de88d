import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDigest } from '../../../test/fuzz/driver.js';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerAndImports } from '../../../test/support/services.js';

const TOKEN = 'imports-test-token-0123456789';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKEN: TOKEN }, services: ledgerAndImports(fakeRates()) });
});
afterAll(() => t.close());

function post(query: string, body: string, type = 'text/csv') {
  return t.app.inject({
    method: 'POST',
    url: `/api/imports?${query}`,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
    payload: body,
  });
}
const get = async (url: string) =>
  (await t.call('GET', url, undefined, { authorization: `Bearer ${TOKEN}` })).json();
const digest = () => databaseDigest(t.db.database);

const HEADER = 'txid,refid,time,type,subtype,aclass,asset,amount,fee,balance';
const FIRST = [
  HEADER,
  'LD1,QD1,2025-03-01 09:00:00,deposit,,currency,ZEUR,1000.0000,0.0000,1000.0000',
  'LT1A,TT1,2025-03-02 12:00:00,trade,,currency,ZEUR,-400.0000,1.0400,598.9600',
  'LT1B,TT1,2025-03-02 12:00:00,trade,,currency,XXBT,0.0050000000,0.0000000000,0.0050000000',
  'LT2A,TT2,2025-03-05 08:00:00,trade,,currency,ZUSD,-250.0000,0.6500,0.0000',
  'LT2B,TT2,2025-03-05 08:00:00,trade,,currency,XXBT,0.0025000000,0.0000000000,0.0075000000',
  'LW1,AW1,2025-03-10 10:00:00,withdrawal,,currency,XXBT,-0.0059000000,0.0001000000,0.0015000000',
  'LS1,SS1,2025-03-11 00:00:00,staking,,currency,XBT.M,0.0000010000,0,0.0000010000',
].join('\n');

describe('POST /api/imports?source=kraken', () => {
  it('turns deposits into bank_to_exchange and withdrawals into exchange_to_wallet at the FIFO cost in EUR', async () => {
    const res = await post('source=kraken&exchange=1&to_wallet=4', FIRST);
    expect(res.statusCode, res.body).toBe(201);
    const answer = res.json();
    expect(answer).toMatchObject({ source: 'kraken', dry_run: false, created: 4, duplicates: 0 });
    expect(answer.skipped).toEqual([{ line: 8, reason: 'type staking is not imported' }]);
    // 600,000 sats left: TT1's 500,000 (401.04 EUR) and 100,000 of TT2's 250,000, bought for
    // 250.65 USD at 0.9050 EUR/USD (the fake rates of 2025-03-05): 90.7353. 491.7753 in all.
    expect(answer.events.map(({ id: _, ...e }: { id: number }) => e)).toEqual([
      {
        type: 'bank_to_exchange',
        occurred_at: '2025-03-01',
        wallet: 1,
        amount: '1000.00',
        currency: 'EUR',
        reference: 'QD1',
        line: 2,
      },
      {
        type: 'exchange_to_wallet',
        occurred_at: '2025-03-10',
        from_wallet: 1,
        to_wallet: 4,
        sats: 590_000,
        fee_sats: 10_000,
        amount: '491.78',
        currency: 'EUR',
        reference: 'AW1',
        line: 7,
      },
    ]);
    expect(
      answer.lots.map((l: { reference: string; sats: number; amount: string }) => [
        l.reference,
        l.sats,
        l.amount,
      ]),
    ).toEqual([
      ['TT1', 500_000, '401.04'],
      ['TT2', 250_000, '250.65'],
    ]);
    const buy = (await get('/api/buys?from=2025-03-10&to=2025-03-10')).items[0];
    expect(buy).toMatchObject({
      event_id: answer.events[1].id,
      sats: 590_000,
      fee_sats: 10_000,
      amount_eur: '491.78',
    });
    expect((await get('/api/wallets/4')).balance).toBe(590_000);
  });

  it('creates only what is new from an overlapping file: its withdrawal takes the lots left by the first', async () => {
    const second = [
      HEADER,
      ...FIRST.split('\n').slice(4, 7),
      'LT3A,TT3,2025-04-01 08:00:00,trade,,currency,ZEUR,-100.0000,0.2600,0.0000',
      'LT3B,TT3,2025-04-01 08:00:00,trade,,currency,XXBT,0.0010000000,0,0.0025000000',
      'LW2,AW2,2025-04-02 10:00:00,withdrawal,,currency,XXBT,-0.0019000000,0.0001000000,0.0005000000',
    ].join('\n');
    const res = await post('source=kraken&exchange=1&to_wallet=4', second);
    expect(res.statusCode, res.body).toBe(201);
    // 200,000 sats: TT2's last 150,000 (136.10295) and 50,000 of TT3's 100,000 (50.13).
    expect(res.json()).toMatchObject({
      created: 2,
      duplicates: 2,
      events: [{ reference: 'AW2', amount: '186.23' }],
    });
    const again = await post('source=kraken&exchange=1&to_wallet=4', second);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: 0, duplicates: 4, events: [], lots: [] });
  });

  it('answers a dry run with what it would create and writes nothing', async () => {
    const third = [
      HEADER,
      'LT4A,TT4,2025-05-01 08:00:00,trade,,currency,ZEUR,-50.0000,0.1300,0.0000',
      'LT4B,TT4,2025-05-01 08:00:00,trade,,currency,XXBT,0.0005000000,0,0.0010000000',
      'LW3,AW3,2025-05-02 10:00:00,withdrawal,,currency,XXBT,-0.0004000000,0,0.0006000000',
    ].join('\n');
    const before = await digest();
    const dry = await post('source=kraken&exchange=1&to_wallet=4&dry_run=true', third);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(await digest()).toBe(before);
    expect(dry.json()).toMatchObject({ dry_run: true, created: 2 });
    expect(dry.json().events[0].id).toBeUndefined();
    const real = await post('source=kraken&exchange=1&to_wallet=4', third);
    expect(real.statusCode).toBe(201);
    const { id, ...made } = real.json().events[0];
    expect(id).toBeTypeOf('number');
    expect(made).toEqual(dry.json().events[0]);
  });

  it('keeps the ledger derived state in step: balances and wallet-days as a rebuild computes them', async () => {
    const { balancesFromEvents } = await import('../ledger/repository.js');
    const { rebuildWalletDays } = await import('../ledger/history.js');
    const db = t.ctx.database.db;
    const kept = await db.selectFrom('btc.wallet_days').selectAll().orderBy(['wallet', 'day']).execute();
    await rebuildWalletDays(db);
    expect(await db.selectFrom('btc.wallet_days').selectAll().orderBy(['wallet', 'day']).execute()).toEqual(
      kept,
    );
    const wallets = await db.selectFrom('btc.wallets').select(['id', 'balance']).orderBy('id').execute();
    expect(await balancesFromEvents(db)).toEqual(wallets);
  });
});

describe('an import refused: 422 listing every problem with its line, nothing written', () => {
  async function refused(query: string, lines: string[]) {
    const before = await digest();
    const res = await post(query, lines.join('\n'));
    expect(await digest()).toBe(before);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    return res.json<{ detail: string; problems: { line: number; reason: string }[] }>();
  }
  const kraken = 'source=kraken&exchange=2&to_wallet=5';

  it('a malformed line, and every other one with it', async () => {
    const r = await refused(kraken, [
      HEADER,
      'L1,Q1,2025-13-01 09:00:00,deposit,,currency,ZEUR,10.0000,0.0000,10.0000',
      'L2,Q2,2025-03-01 09:00:00,deposit,,currency,ZEUR,10.0000,0.0000,10.0000',
      'L3,Q3,2025-03-01 09:00:00,deposit,,currency,ZEUR,ten,0.0000,10.0000',
    ]);
    expect(r.problems.map((p) => p.line)).toEqual([2, 4]);
    expect(r.detail).toMatch(/^nothing was imported: line 2: time: "2025-13-01 09:00:00"/);
  });

  it('a withdrawal of more sats than the lots hold', async () => {
    const r = await refused(kraken, [
      HEADER,
      'L1,T1,2025-03-01 09:00:00,trade,,currency,ZEUR,-10.0000,0.0000,0.0000',
      'L2,T1,2025-03-01 09:00:00,trade,,currency,XXBT,0.0001000000,0,0.0001000000',
      'L3,A1,2025-03-02 09:00:00,withdrawal,,currency,XXBT,-0.0002000000,0,0.0000000000',
    ]);
    expect(r.problems).toEqual([
      {
        line: 4,
        reason:
          'withdraws 20000 sats (20000 and 0 fee) but the lots bought on the exchange up to then hold only 10000 more',
      },
    ]);
  });

  it('a wallet of the wrong kind, named by a line or by the query', async () => {
    const csv = await refused('source=csv', [
      'date,type,sats,fee_sats,amount,currency,reference,wallet',
      '2025-05-01,bank_to_exchange,,,100.00,EUR,k-1,Trezor',
    ]);
    expect(csv.problems).toEqual([{ line: 2, reason: 'wallet: wallet 4 (Trezor) is not an exchange' }]);
    const query = await post('source=kraken&exchange=4&to_wallet=5', HEADER);
    expect(query.statusCode).toBe(422);
    expect(query.json().detail).toBe('querystring.exchange: wallet 4 (Trezor) is not an exchange');
    expect((await post('source=kraken&exchange=99&to_wallet=5', HEADER)).json().detail).toBe(
      'querystring.exchange: there is no wallet 99',
    );
    const missing = await post('source=kraken&to_wallet=5', HEADER);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/^querystring\.exchange: required/);
  });

  it('a history that would go below zero, the 2.1e15 bound, and a day in the future', async () => {
    const header = 'date,type,sats,fee_sats,amount,currency,reference,from_wallet,to_wallet';
    const r = await refused('source=csv&exchange=3', [
      header,
      '2025-05-02,wallet_to_wallet,1000,10,,,k-2,Coldcard,Paper wallet',
      '2025-05-03,exchange_to_wallet,2000000000000000,200000000000000,5.00,EUR,k-3,,Paper wallet',
      '2026-07-04,bank_to_exchange,,,5.00,EUR,k-4,,',
    ]);
    expect(r.problems).toEqual([
      {
        line: 3,
        reason: 'sats + fee_sats is 2200000000000000, more than the 2100000000000000 sats there will ever be',
      },
      { line: 4, reason: 'date 2026-07-04 is in the future (today is 2026-07-03)' },
    ]);
    const overdraft = await refused('source=csv', [
      header,
      '2025-05-02,wallet_to_wallet,1000,10,,,k-2,Coldcard,Paper wallet',
    ]);
    expect(overdraft.problems).toEqual([
      {
        line: 2,
        reason:
          'wallet 6 (Coldcard) would be 1010 sats below zero on 2025-05-02: its running balance may not go negative on any date',
      },
    ]);
    const tooMuch = await refused('source=csv&exchange=3', [
      header,
      '2025-05-03,exchange_to_wallet,1500000000000000,0,5.00,EUR,k-5,,Paper wallet',
      '2025-05-04,exchange_to_wallet,1500000000000000,0,5.00,EUR,k-6,,Paper wallet',
    ]);
    expect(tooMuch.problems).toEqual([
      {
        line: 3,
        reason:
          'wallet 7 (Paper wallet) would hold 3000000000000000 sats, more than the 2100000000000000 there will ever be',
      },
    ]);
  });
});

describe('POST /api/imports?source=csv', () => {
  it('reads comma files with decimal points and semicolon files with decimal commas alike', async () => {
    const dot = [
      'date,type,sats,fee_sats,amount,currency,reference,to_wallet',
      '2025-05-01,exchange_to_wallet,100000,0,55.10,EUR,csv-1,Ledger',
    ];
    const danish = [
      'date;type;sats;fee_sats;amount;currency;reference;to_wallet',
      '01-05-2025;exchange_to_wallet;100000;0;55,10;EUR;csv-1;Ledger',
    ];
    const a = await post('source=csv&exchange=3&dry_run=true', dot.join('\r\n'));
    const b = await post('source=csv&exchange=3&dry_run=true', `\uFEFF${danish.join('\r\n')}`);
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().events).toEqual([
      {
        type: 'exchange_to_wallet',
        occurred_at: '2025-05-01',
        from_wallet: 3,
        to_wallet: 5,
        sats: 100_000,
        fee_sats: 0,
        amount: '55.10',
        currency: 'EUR',
        reference: 'csv-1',
        line: 2,
      },
    ]);
    expect(b.json()).toEqual(a.json());
    const mixed = await post('source=csv&exchange=3', danish.join('\n').replace('55,10', '55.10'));
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().problems[0].reason).toMatch(
      /^amount: "55.10" is not a positive amount with a decimal comma/,
    );
  });
});

describe('the body of POST /api/imports', () => {
  const staking = (i: number) =>
    `LS${i},SS${i},2025-03-11 00:00:00,staking,,currency,XBT.M,0.0000010000,0,0.0000010000`;

  it('may be larger than BODY_LIMIT_BYTES, up to 16 MiB, and no larger', async () => {
    const lines = [HEADER];
    for (let i = 0; lines.join('\n').length < 1.5 * 1024 * 1024; i += 1000)
      for (let j = i; j < i + 1000; j++) lines.push(staking(j));
    const big = await post('source=kraken&exchange=2&to_wallet=5', lines.join('\n'));
    expect(big.statusCode, big.body.slice(0, 200)).toBe(200);
    expect(big.json().skipped).toHaveLength(lines.length - 1);
    const tooBig = await post(
      'source=kraken&exchange=2&to_wallet=5',
      `${HEADER}\n${'x'.repeat(16 * 1024 * 1024)}`,
    );
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.headers['content-type']).toContain('application/problem+json');
  });

  it('is CSV text: another media type is 415, and without the token it is 401', async () => {
    const json = await post('source=kraken&exchange=2&to_wallet=5', '{"a":1}', 'application/json');
    expect(json.statusCode).toBe(415);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/imports?source=kraken&exchange=2&to_wallet=5',
      headers: { 'content-type': 'text/csv' },
      payload: HEADER,
    });
    expect(anonymous.statusCode).toBe(401);
    const plain = await post('source=kraken&exchange=2&to_wallet=5', HEADER, 'text/plain; charset=utf-8');
    expect(plain.statusCode).toBe(200);
  });
});
