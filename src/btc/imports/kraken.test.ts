import { describe, expect, it } from 'vitest';
import { readKraken } from './kraken.js';
import type { ReadFile } from './movements.js';
import { readCsv } from './records.js';

/**
 * Fixtures written from Kraken's documented ledger columns, as its exports of different years
 * lay them out: strings quoted, numbers bare, times in UTC.
 */
const NOW = new Date('2026-07-03T10:00:00Z');
const WALLETS = { exchange: 1, to_wallet: 4 };

async function read(lines: string[]): Promise<ReadFile> {
  const parsed = await readCsv(lines.join('\n'));
  if (!parsed.ok) throw new Error(parsed.problem.reason);
  return readKraken(parsed.file, WALLETS, NOW);
}

const at = (iso: string) => Date.parse(iso);

describe("Kraken's ledger export, classic columns (txid … balance)", () => {
  const header = '"txid","refid","time","type","subtype","aclass","asset","amount","fee","balance"';

  it('reads deposits, trades and withdrawals to the cent, and says why it leaves out the rest', async () => {
    const r = await read([
      header,
      '"","QDEP1-AAA","2025-01-10 09:00:00","deposit","","currency","ZEUR",1000.0000,0.0000,""',
      '"LDEP1-AAA","QDEP1-AAA","2025-01-10 09:05:00","deposit","","currency","ZEUR",1000.0000,0.0000,1000.0000',
      '"LTR1A-AAA","TTR1-AAA","2025-01-11 12:00:00","trade","","currency","ZEUR",-400.0000,1.0400,598.9600',
      '"LTR1B-AAA","TTR1-AAA","2025-01-11 12:00:00","trade","","currency","XXBT",0.0050000000,0.0000000000,0.0050000000',
      '"LWD1-AAA","AWD1-AAA","2025-02-10 10:00:00","withdrawal","","currency","XXBT",-0.0060000000,0.0001000000,0.0000000000',
      '"LST1-AAA","STK1-AAA","2025-02-11 00:00:00","staking","","currency","XBT.M",0.0000010000,0.0000000000,0.0000010000',
      '"LWF1-AAA","AWF1-AAA","2025-02-12 10:00:00","withdrawal","","currency","ZEUR",-500.0000,0.0900,98.8700',
    ]);
    expect(r.problems).toEqual([]);
    expect(r.movements).toEqual([
      {
        kind: 'event',
        line: 3,
        reference: 'QDEP1-AAA',
        at: at('2025-01-10T09:05:00Z'),
        event: {
          type: 'bank_to_exchange',
          occurred_at: '2025-01-10',
          wallet: 1,
          amount: '1000.00',
          currency: 'EUR',
        },
      },
      // The fee Kraken took in euros is part of what the sats cost: 400.00 + 1.04.
      {
        kind: 'lot',
        line: 5,
        reference: 'TTR1-AAA',
        at: at('2025-01-11T12:00:00Z'),
        day: '2025-01-11',
        sats: 500_000,
        amount: '401.04',
        currency: 'EUR',
      },
      // 0.006 BTC reached the wallet; 0.0001 BTC more left the exchange as the fee.
      {
        kind: 'withdrawal',
        line: 6,
        reference: 'AWD1-AAA',
        at: at('2025-02-10T10:00:00Z'),
        day: '2025-02-10',
        sats: 600_000,
        fee_sats: 10_000,
      },
    ]);
    expect(r.skipped).toEqual([
      { line: 2, reason: 'no txid: a pending or failed entry' },
      { line: 7, reason: 'type staking is not imported' },
      { line: 8, reason: 'withdrawal of EUR to a bank is not imported' },
    ]);
  });

  it('takes a fee charged in bitcoin off the sats, and a spend/receive pair as a buy', async () => {
    const r = await read([
      header,
      '"LTR3A-AAA","TTR3-AAA","2025-03-01 08:00:00","trade","","currency","ZUSD",-250.0000,0.0000,0.0000',
      '"LTR3B-AAA","TTR3-AAA","2025-03-01 08:00:00","trade","","currency","XXBT",0.0025000000,0.0000065000,0.0024935000',
      '"LSP1-AAA","RSP1-AAA","2025-03-02 08:00:00","spend","","currency","ZDKK",-1000.0000,2.6000,0.0000',
      '"LRC1-AAA","RSP1-AAA","2025-03-02 08:00:01","receive","","currency","XBT",0.0015000000,0.0000000000,0.0039935000',
    ]);
    expect(r.problems).toEqual([]);
    expect(
      r.movements.map((m) => (m.kind === 'lot' ? [m.line, m.sats, m.amount, m.currency] : m.kind)),
    ).toEqual([
      [3, 249_350, '250.00', 'USD'],
      [5, 150_000, '1002.60', 'DKK'],
    ]);
  });

  it('cancels a withdrawal Kraken credited back, and leaves out sales and other assets', async () => {
    const r = await read([
      header,
      '"LWD2-AAA","AWD2-AAA","2025-04-01 10:00:00","withdrawal","","currency","XXBT",-0.0100000000,0.0001000000,0.0000000000',
      '"LWD3-AAA","AWD2-AAA","2025-04-01 10:30:00","withdrawal","","currency","XXBT",0.0100000000,-0.0001000000,0.0101000000',
      '"LTR4A-AAA","TTR4-AAA","2025-04-02 08:00:00","trade","","currency","XXBT",-0.0010000000,0.0000000000,0.0091000000',
      '"LTR4B-AAA","TTR4-AAA","2025-04-02 08:00:00","trade","","currency","ZEUR",90.0000,0.2300,89.7700',
      '"LTR5A-AAA","TTR5-AAA","2025-04-03 08:00:00","trade","","currency","ZEUR",-50.0000,0.1300,39.6400',
      '"LTR5B-AAA","TTR5-AAA","2025-04-03 08:00:00","trade","","currency","XETH",0.0200000000,0.0000000000,0.0200000000',
      '"LDP2-AAA","QDP2-AAA","2025-04-04 08:00:00","deposit","","currency","XXBT",0.0100000000,0.0000000000,0.0191000000',
      '"LDP3-AAA","QDP3-AAA","2025-04-05 08:00:00","deposit","","currency","ZGBP",100.0000,0.0000,100.0000',
    ]);
    expect(r.problems).toEqual([]);
    expect(r.movements).toEqual([]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([
      [2, 'withdrawal AWD2-AAA was reversed (lines 2, 3)'],
      [3, 'withdrawal AWD2-AAA was reversed (lines 2, 3)'],
      [4, 'trade TTR4-AAA sells XBT: sales are not imported'],
      [5, 'trade TTR4-AAA sells XBT: sales are not imported'],
      [6, 'trade TTR5-AAA between EUR and ETH: only buys of XBT with EUR, DKK or USD are imported'],
      [7, 'trade TTR5-AAA between EUR and ETH: only buys of XBT with EUR, DKK or USD are imported'],
      [8, 'deposit of XBT: sats from outside have no known cost, so they make no lot'],
      [9, 'deposit of GBP: only EUR, DKK and USD deposits are imported'],
    ]);
  });

  it('dates each line by the Danish day of its UTC time, at midnight in summer (UTC+2) and winter (UTC+1)', async () => {
    const deposit = (time: string, i: number) =>
      `"L${i}","Q${i}","${time}","deposit","","currency","EUR.HOLD",10.0000,0.0000,10.0000`;
    const r = await read([
      header,
      deposit('2025-06-30 21:59:59', 1),
      deposit('2025-06-30 22:00:00', 2),
      deposit('2025-01-31 22:59:59', 3),
      deposit('2025-01-31 23:00:00', 4),
    ]);
    expect(r.movements.map((m) => (m.kind === 'event' ? [m.line, m.event.occurred_at] : null))).toEqual([
      [4, '2025-01-31'],
      [5, '2025-02-01'],
      [2, '2025-06-30'],
      [3, '2025-07-01'],
    ]);
  });
});

describe("Kraken's later exports (wallet, subclass, amountusd)", () => {
  it('matches columns by name, ignores the new ones, and counts only the spot wallet', async () => {
    const r = await read([
      '"txid","refid","time","type","subtype","aclass","subclass","asset","wallet","amount","fee","balance","amountusd","feeusd","balanceusd"',
      '"L1","TRA","2026-01-05 10:00:00.3812","trade","tradespot","currency","fiat","EUR","spot / main",-499.2220,0.7780,0.0000,-540.00,0.84,0.00',
      '"L2","TRA","2026-01-05 10:00:00.3812","trade","tradespot","currency","crypto","BTC","spot / main",0.0060000000,0,0.0060000000,540.00,0,540.00',
      '"L3","ERN","2026-01-06 10:00:00","earn","allocation","currency","crypto","BTC","earn / flexible",0.0010000000,0,0.0010000000,90.00,0,90.00',
      '"L4","WDR","2026-01-07 10:00:00","withdrawal","","currency","crypto","BTC","spot / main",-0.0049000000,0.0001000000,0.0000000000,-441.00,9.00,0.00',
    ]);
    expect(r.problems).toEqual([]);
    expect(r.movements).toEqual([
      {
        kind: 'lot',
        line: 3,
        reference: 'TRA',
        at: at('2026-01-05T10:00:00.381Z'),
        day: '2026-01-05',
        sats: 600_000,
        amount: '500.00',
        currency: 'EUR',
      },
      {
        kind: 'withdrawal',
        line: 5,
        reference: 'WDR',
        at: at('2026-01-07T10:00:00Z'),
        day: '2026-01-07',
        sats: 490_000,
        fee_sats: 10_000,
      },
    ]);
    expect(r.skipped).toEqual([
      { line: 4, reason: 'in Kraken\'s "earn / flexible" wallet, not the spot wallet' },
    ]);
  });
});

describe('a Kraken file refused, each problem on its line', () => {
  const header = 'txid,refid,time,type,subtype,aclass,asset,amount,fee,balance';
  const ok = 'L1,Q1,2025-01-10 09:05:00,deposit,,currency,ZEUR,10.0000,0.0000,10.0000';

  it.each([
    ['a missing column', ['txid,refid,time,type,asset,fee', ok], 1, 'the header lacks the column amount'],
    [
      'a short line',
      [header, 'L1,Q1,2025-01-10 09:05:00,deposit'],
      2,
      'expected 10 fields as the header has, found 4',
    ],
    ['a NUL character', [header, ok.replace('Q1', 'Q\u00001')], 2, 'holds a NUL character'],
    [
      'an impossible day',
      [header, ok.replace('2025-01-10', '2025-02-30')],
      2,
      'time: "2025-02-30 09:05:00" is not a UTC time',
    ],
    [
      'a time without seconds',
      [header, ok.replace('09:05:00', '09:05')],
      2,
      'is not a UTC time YYYY-MM-DD HH:MM:SS',
    ],
    ['year 0000', [header, ok.replace('2025', '0000')], 2, 'is before the first bitcoin block (2009-01-03)'],
    ['year 9999', [header, ok.replace('2025', '9999')], 2, 'time: 9999-01-10 09:05:00 is in the future'],
    ['a number with an exponent', [header, ok.replace('10.0000', '1e3')], 2, 'amount: "1e3" is not a number'],
    [
      'a number with 11 decimals',
      [header, ok.replace(',0.0000,', ',0.00000000001,')],
      2,
      'fee: "0.00000000001" is not a number',
    ],
    ['Infinity', [header, ok.replace('10.0000', 'Infinity')], 2, 'amount: "Infinity" is not a number'],
    ['an unknown asset', [header, ok.replace('ZEUR', '€')], 2, 'asset: "€" is not a Kraken asset name'],
    ['an empty refid', [header, ok.replace('Q1', '')], 2, 'refid: "" is not a Kraken reference'],
    [
      'a withdrawal of part of a sat',
      [header, 'L9,A9,2025-01-10 09:05:00,withdrawal,,currency,XXBT,-0.0000000001,0,0'],
      2,
      'is not a whole number of sats',
    ],
    ['an unclosed quote', [header, ok, `"${ok}`], 3, 'not readable as CSV'],
  ])('%s', async (_what, lines, line, reason) => {
    const parsed = await readCsv(lines.join('\n'));
    const problems = parsed.ok ? readKraken(parsed.file, WALLETS, NOW).problems : [parsed.problem];
    expect(problems[0]?.line).toBe(line);
    expect(problems[0]?.reason).toContain(reason);
  });

  it('lists every problem of the file, not only the first', async () => {
    const r = await read([
      header,
      ok.replace('ZEUR', '??'),
      ok,
      ok.replace('10.0000', 'ten').replace('2025-01-10', '2025-13-10'),
    ]);
    expect(r.problems.map((p) => p.line)).toEqual([2, 4, 4]);
  });
});
