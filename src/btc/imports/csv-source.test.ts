import { describe, expect, it } from 'vitest';
import { readGenericCsv } from './csv-source.js';
import type { ReadFile } from './movements.js';
import { readCsv } from './records.js';

const NAMES = new Map([
  ['Kraken', 1],
  ['Trezor', 4],
  ['Ledger', 5],
]);
const HEADER = 'date,type,sats,fee_sats,amount,currency,reference,from_wallet,to_wallet';

async function read(lines: string[], wallets = { exchange: 1, to_wallet: 4 }): Promise<ReadFile> {
  const parsed = await readCsv(lines.join('\n'));
  if (!parsed.ok) throw new Error(parsed.problem.reason);
  return readGenericCsv(parsed.file, wallets, NAMES);
}

describe('source=csv: one ledger event per line', () => {
  it('takes the buys and sells kept on an exchange, spends and receives, with a receive’s kind', async () => {
    const r = await read([
      `${HEADER},kind`,
      '2025-06-01,exchange_buy,200000,,150.00,EUR,n-1,,,',
      '2025-06-02,exchange_sell,50000,,40.00,EUR,n-2,,,',
      '2025-06-03,spend,10000,300,,,n-3,Trezor,,',
      '2025-06-04,receive,7000,,5.00,DKK,n-4,,,income',
      '2025-06-05,receive,7000,,,,n-5,,Ledger,gift',
      '2025-06-06,receive,7000,,,,n-6,,,found',
    ]);
    expect(r.problems).toEqual([{ line: 7, reason: 'kind: "found" is not one of income, gift, unknown' }]);
    expect(r.movements.map((m) => (m.kind === 'event' ? m.event : m))).toEqual([
      {
        type: 'exchange_buy',
        occurred_at: '2025-06-01',
        wallet: 1,
        sats: 200_000,
        amount: '150.00',
        currency: 'EUR',
      },
      {
        type: 'exchange_sell',
        occurred_at: '2025-06-02',
        wallet: 1,
        sats: 50_000,
        amount: '40.00',
        currency: 'EUR',
      },
      { type: 'spend', occurred_at: '2025-06-03', from_wallet: 4, sats: 10_000, fee_sats: 300 },
      {
        type: 'receive',
        occurred_at: '2025-06-04',
        to_wallet: 4,
        sats: 7_000,
        kind: 'income',
        amount: '5.00',
        currency: 'DKK',
      },
      { type: 'receive', occurred_at: '2025-06-05', to_wallet: 5, sats: 7_000, kind: 'gift' },
    ]);
  });

  it('takes wallets from the columns of names, else from the query, and days as spreadsheets write them', async () => {
    const r = await read([
      HEADER,
      '2025-05-01,bank_to_exchange,,,500.00,DKK,b-1,,',
      '02-05-2025,exchange_to_wallet,100000,500,55.10,eur,b-2,,Ledger',
      '03.05.2025,wallet_to_wallet,50000,200,,,b-3,Ledger,Trezor',
    ]);
    expect(r.problems).toEqual([]);
    expect(r.movements.map((m) => (m.kind === 'event' ? [m.line, m.reference, m.event] : m))).toEqual([
      [
        2,
        'b-1',
        { type: 'bank_to_exchange', occurred_at: '2025-05-01', wallet: 1, amount: '500.00', currency: 'DKK' },
      ],
      [
        3,
        'b-2',
        {
          type: 'exchange_to_wallet',
          occurred_at: '2025-05-02',
          from_wallet: 1,
          to_wallet: 5,
          sats: 100_000,
          fee_sats: 500,
          amount: '55.10',
          currency: 'EUR',
        },
      ],
      [
        4,
        'b-3',
        {
          type: 'wallet_to_wallet',
          occurred_at: '2025-05-03',
          from_wallet: 5,
          to_wallet: 4,
          sats: 50_000,
          fee_sats: 200,
        },
      ],
    ]);
  });

  it('reads a semicolon file with decimal commas, and refuses a thousands separator or a decimal point in it', async () => {
    const parsed = await readCsv(
      [
        'date;type;sats;fee_sats;amount;currency;reference',
        '2025-05-01;bank_to_exchange;;;1234,56;EUR;d-1',
        '2025-05-01;bank_to_exchange;;;1.234,56;EUR;d-2',
        '2025-05-01;bank_to_exchange;;;12.50;EUR;d-3',
      ].join('\r\n'),
    );
    if (!parsed.ok) throw new Error(parsed.problem.reason);
    const r = readGenericCsv(parsed.file, { exchange: 1 }, NAMES);
    expect(
      r.movements.map((m) =>
        m.kind === 'event' && m.event.type === 'bank_to_exchange' ? m.event.amount : null,
      ),
    ).toEqual(['1234.56']);
    expect(r.problems.map((p) => [p.line, p.reason])).toEqual([
      [3, 'amount: "1.234,56" is not a positive amount with a decimal comma and at most 8 decimals'],
      [4, 'amount: "12.50" is not a positive amount with a decimal comma and at most 8 decimals'],
    ]);
  });

  it.each([
    [
      'a day that is not one',
      '2025-02-30,bank_to_exchange,,,5.00,EUR,x,,',
      'date: "2025-02-30" is not a day',
    ],
    ['year 0000', '0000-01-01,bank_to_exchange,,,5.00,EUR,x,,', 'date: "0000-01-01" is not a day'],
    [
      'an unknown type',
      '2025-05-01,buy,,,5.00,EUR,x,,',
      'type: "buy" is not one of bank_to_exchange, exchange_to_wallet, wallet_to_wallet',
    ],
    [
      'sats with decimals',
      '2025-05-01,wallet_to_wallet,1.5,0,,,x,Ledger,Trezor',
      'sats: "1.5" is not a whole number of sats',
    ],
    [
      'more sats than there will be',
      '2025-05-01,wallet_to_wallet,2100000000000001,0,,,x,Ledger,Trezor',
      'sats: "2100000000000001" is not a whole number',
    ],
    [
      'an amount a float would alter',
      '2025-05-01,bank_to_exchange,,,0.123456789,EUR,x,,',
      'amount: "0.123456789" is not a positive amount',
    ],
    [
      'a zero amount',
      '2025-05-01,bank_to_exchange,,,0.00,EUR,x,,',
      'amount: "0.00" is not a positive amount',
    ],
    [
      'an unknown currency',
      '2025-05-01,bank_to_exchange,,,5.00,SEK,x,,',
      'currency: "SEK" is not one of EUR, DKK, USD',
    ],
    [
      'an unknown wallet name',
      '2025-05-01,wallet_to_wallet,10,0,,,x,Coldcard,Trezor',
      'from_wallet: there is no wallet named "Coldcard"',
    ],
    [
      'no reference',
      '2025-05-01,bank_to_exchange,,,5.00,EUR,,,',
      'reference: each line needs its own reference',
    ],
    [
      'a field the type has not',
      '2025-05-01,bank_to_exchange,10,,5.00,EUR,x,,',
      'sats: a bank_to_exchange event has no sats; leave it empty',
    ],
    [
      'a field the type needs',
      '2025-05-01,exchange_to_wallet,10,0,,EUR,x,,',
      'amount: required for a exchange_to_wallet event',
    ],
    [
      'a transfer without its sender',
      '2025-05-01,wallet_to_wallet,10,0,,,x,,Trezor',
      'from_wallet: required for a wallet_to_wallet event (a from_wallet column of wallet names)',
    ],
  ])('refuses %s, naming the line', async (_what, line, reason) => {
    const r = await read([HEADER, line]);
    expect(r.problems[0]).toEqual({ line: 2, reason: expect.stringContaining(reason) as string });
  });

  it('refuses a reference that repeats an earlier line', async () => {
    const r = await read([
      HEADER,
      '2025-05-01,bank_to_exchange,,,5.00,EUR,x,,',
      '2025-05-02,bank_to_exchange,,,5.00,EUR,x,,',
    ]);
    expect(r.problems).toEqual([{ line: 3, reason: 'reference: "x" is already on line 2' }]);
  });

  it('refuses a file without the columns, naming those missing', async () => {
    const r = await read(['date,type,amount,reference']);
    expect(r.problems).toEqual([
      {
        line: 1,
        reason:
          'the header lacks the columns sats, fee_sats, currency (it has date, type, amount, reference)',
      },
    ]);
  });
});
