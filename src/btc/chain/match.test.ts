import { describe, expect, it } from 'vitest';
import { validatorCompiler } from '../../http/validation.js';
import { matchMoves, suggest, type LedgerMove, type TxPart, type TxView } from './match.js';
import { SuggestedEvent } from './schemas.js';

const A = 4;
const B = 5;
const C = 6;

let n = 0;
function tx(time: string, parts: TxPart[], feeSats = 0): TxView {
  return {
    txid: (++n).toString(16).padStart(64, '0'),
    confirmed: true,
    time: new Date(time),
    feeSats,
    parts,
  };
}
const part = (wallet: number, netSats: number, paidFee = netSats < 0): TxPart => ({
  wallet,
  netSats,
  paidFee,
});
const move = (eventId: number, date: string, delta: number): LedgerMove => ({ eventId, date, delta });

describe('matching a wallet’s transactions to its ledger moves', () => {
  it('takes the event of the same sats on the same Danish day', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, 100_000)]);
    expect(matchMoves(A, [t], [move(1, '2026-07-03', 100_000)])).toEqual(new Map([[t.txid, [1]]]));
  });

  it('reads the day in Danish time: a block at 22:30 UTC belongs to the next Danish day', () => {
    // 2026-07-02T22:30Z is 00:30 on 3 July in Copenhagen: an event of 4 July is one day off, not two
    const t = tx('2026-07-02T22:30:00Z', [part(A, 5_000)]);
    expect(matchMoves(A, [t], [move(1, '2026-07-04', 5_000)]).get(t.txid)).toEqual([1]);
    // and in winter (CET): 2026-01-01T23:30Z is 2 January
    const w = tx('2026-01-01T23:30:00Z', [part(A, 6_000)]);
    expect(matchMoves(A, [w], [move(2, '2026-01-03', 6_000)]).get(w.txid)).toEqual([2]);
  });

  it('finds the Danish midnight on the 23-hour and the 25-hour day', () => {
    // 2026-03-29 has 23 hours (summer time from 01:00 UTC): the next day begins at 22:00 UTC
    const late = tx('2026-03-29T21:59:00Z', [part(A, 7_000)]);
    expect(matchMoves(A, [late], [move(1, '2026-03-28', 7_000)]).get(late.txid)).toEqual([1]);
    const spring = tx('2026-03-29T22:00:00Z', [part(A, 7_000)]);
    expect(matchMoves(A, [spring], [move(1, '2026-03-28', 7_000)]).size).toBe(0);
    expect(matchMoves(A, [spring], [move(1, '2026-03-31', 7_000)]).get(spring.txid)).toEqual([1]);
    // 2026-10-25 has 25 hours (winter time from 01:00 UTC): the next day begins at 23:00 UTC
    const autumn = tx('2026-10-25T23:00:00Z', [part(A, 8_000)]);
    expect(matchMoves(A, [autumn], [move(2, '2026-10-24', 8_000)]).size).toBe(0);
    expect(matchMoves(A, [autumn], [move(2, '2026-10-27', 8_000)]).get(autumn.txid)).toEqual([2]);
  });

  it('does not reach two days, nor another amount (a fee left out of the event)', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, -50_500)], 500);
    const far = [
      move(1, '2026-07-05', -50_500),
      move(2, '2026-07-01', -50_500),
      move(3, '2026-07-03', -50_000),
    ];
    expect(matchMoves(A, [t], far).size).toBe(0);
  });

  it('matches each event once: of two equal transactions one stays unmatched', () => {
    const t1 = tx('2026-07-03T09:00:00Z', [part(A, 1_000)]);
    const t2 = tx('2026-07-03T11:00:00Z', [part(A, 1_000)]);
    const m = matchMoves(A, [t1, t2], [move(7, '2026-07-03', 1_000)]);
    expect([...m.values()]).toEqual([[7]]);
  });

  it('matches as many as can be, and prefers the transaction’s own day', () => {
    // t1 on the 3rd could take the 2nd's or the 3rd's event; t2 on the 4th only the 3rd's
    const t1 = tx('2026-07-03T10:00:00Z', [part(A, 2_000)]);
    const t2 = tx('2026-07-04T10:00:00Z', [part(A, 2_000)]);
    const both = matchMoves(A, [t2, t1], [move(1, '2026-07-02', 2_000), move(2, '2026-07-03', 2_000)]);
    expect([both.get(t1.txid), both.get(t2.txid)]).toEqual([[1], [2]]);
    const alone = matchMoves(A, [t1], [move(1, '2026-07-02', 2_000), move(2, '2026-07-03', 2_000)]);
    expect(alone.get(t1.txid)).toEqual([2]);
  });

  it('explains a payment to two watched wallets by the two moves that record it', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, -30_300), part(B, 10_000), part(C, 20_000, false)], 300);
    const moves = [
      move(1, '2026-07-03', -10_300),
      move(2, '2026-07-03', -20_000),
      move(3, '2026-07-03', 999),
    ];
    expect(matchMoves(A, [t], moves).get(t.txid)).toEqual([1, 2]);
  });
});

describe('suggestions for what no event records', () => {
  const check = validatorCompiler()({
    schema: SuggestedEvent,
    method: 'POST',
    url: '/api/events',
    httpPart: 'body',
  });
  const valid = (bodies: unknown[]) => {
    for (const b of bodies) expect(check(b), JSON.stringify(b)).toBe(true);
    return bodies;
  };

  it('sats from outside are a receive of unknown kind on the Danish day', () => {
    const t = tx('2026-07-02T22:30:00Z', [part(A, 100_000)]);
    expect(valid(suggest(A, t))).toEqual([
      { type: 'receive', occurred_at: '2026-07-03', to_wallet: A, sats: 100_000, kind: 'unknown' },
    ]);
  });

  it('sats leaving the household are a spend with the fee, when the wallet paid it', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, -60_700)], 700);
    expect(valid(suggest(A, t))).toEqual([
      { type: 'spend', occurred_at: '2026-07-03', from_wallet: A, sats: 60_000, fee_sats: 700 },
    ]);
  });

  it('between two watched wallets, a move with the fee, the same on both sides', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, -50_500), part(B, 50_000)], 500);
    const body = {
      type: 'wallet_to_wallet',
      occurred_at: '2026-07-03',
      from_wallet: A,
      to_wallet: B,
      sats: 50_000,
      fee_sats: 500,
    };
    expect(valid(suggest(A, t))).toEqual([body]);
    expect(suggest(B, t)).toEqual([body]);
  });

  it('a watched wallet paying two watched wallets and someone else: two moves and a spend carrying the fee', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(A, -71_000), part(B, 10_000), part(C, 20_000)], 1_000);
    expect(valid(suggest(A, t))).toEqual([
      {
        type: 'wallet_to_wallet',
        occurred_at: '2026-07-03',
        from_wallet: A,
        to_wallet: B,
        sats: 10_000,
        fee_sats: 0,
      },
      {
        type: 'wallet_to_wallet',
        occurred_at: '2026-07-03',
        from_wallet: A,
        to_wallet: C,
        sats: 20_000,
        fee_sats: 0,
      },
      { type: 'spend', occurred_at: '2026-07-03', from_wallet: A, sats: 40_000, fee_sats: 1_000 },
    ]);
    expect(suggest(C, t)).toEqual([
      expect.objectContaining({ type: 'wallet_to_wallet', to_wallet: C, sats: 20_000 }),
    ]);
  });

  it('an outside payment to two watched wallets is a receive for each', () => {
    const t = tx('2026-07-03T10:00:00Z', [part(B, 10_000), part(C, 20_000)]);
    expect(valid(suggest(B, t))).toEqual([
      expect.objectContaining({ type: 'receive', to_wallet: B, sats: 10_000 }),
    ]);
    expect(suggest(C, t)).toEqual([expect.objectContaining({ type: 'receive', to_wallet: C, sats: 20_000 })]);
  });

  it('a wallet paying itself costs only the fee: nothing to suggest', () => {
    expect(suggest(A, tx('2026-07-03T10:00:00Z', [part(A, -300)], 300))).toEqual([]);
  });

  it('the mirror of the ledger’s receive and spend refuses what they refuse', () => {
    expect(
      check({ type: 'receive', occurred_at: '2026-07-03', to_wallet: A, sats: 0, kind: 'unknown' }),
    ).toBe(false);
    expect(check({ type: 'receive', occurred_at: '2026-07-03', to_wallet: A, sats: 1, kind: 'salary' })).toBe(
      false,
    );
    expect(check({ type: 'spend', occurred_at: '2026-07-03', from_wallet: A, sats: 1 })).toBe(false);
    expect(
      check({
        type: 'spend',
        occurred_at: '2026-07-03',
        from_wallet: A,
        sats: 1,
        fee_sats: 0,
        amount: '5.10',
        currency: 'EUR',
      }),
    ).toBe(true);
    expect(
      check({ type: 'receive', occurred_at: '2026-07-03', to_wallet: A, sats: 1, kind: 'gift', txid: 'x' }),
    ).toBe(false);
  });
});
