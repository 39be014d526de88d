import { describe, expect, it } from 'vitest';
import {
  decide,
  effects,
  historyViolation,
  isViolation,
  parseEvent,
  type LedgerState,
  type WalletState,
} from './events.js';

const wallet = (id: number, wallet_type: WalletState['wallet_type'], balance = 0): [number, WalletState] => [
  id,
  { id, name: `w${id}`, wallet_type, balance },
];
const state: LedgerState = {
  wallets: new Map([wallet(1, 'exchange'), wallet(4, 'wallet', 500), wallet(5, 'wallet')]),
  today: '2026-06-30',
};

describe('parseEvent', () => {
  it('takes each type with exactly its own fields', () => {
    expect(
      parseEvent({
        type: 'bank_to_exchange',
        occurred_at: '2026-01-02',
        wallet: 1,
        amount: 12.5,
        currency: 'EUR',
      }),
    ).toEqual({
      type: 'bank_to_exchange',
      occurred_at: '2026-01-02',
      wallet: 1,
      amount: '12.5',
      currency: 'EUR',
    });
    const extra = parseEvent({
      type: 'wallet_to_wallet',
      occurred_at: '2026-01-02',
      from_wallet: 4,
      to_wallet: 5,
      sats: 1,
      fee_sats: 0,
      amount: 3,
    });
    expect(extra).toEqual({ kind: 'field_not_allowed', field: 'amount', type: 'wallet_to_wallet' });
    const missing = parseEvent({
      type: 'exchange_to_wallet',
      occurred_at: '2026-01-02',
      from_wallet: 1,
      to_wallet: 4,
      sats: 1,
      amount: '1',
      currency: 'EUR',
    });
    expect(missing).toEqual({ kind: 'field_required', field: 'fee_sats', type: 'exchange_to_wallet' });
  });

  it('keeps a number amount as its exact decimal text', () => {
    const tiny = parseEvent({
      type: 'bank_to_exchange',
      occurred_at: '2026-01-02',
      wallet: 1,
      amount: 1e-7,
      currency: 'EUR',
    });
    expect(tiny).toMatchObject({ amount: '0.0000001' });
    expect(isViolation(tiny)).toBe(false);
  });
});

const day = '2026-06-01';

describe('decide', () => {
  it('applies each type’s effect: a buy adds to to_wallet, a transfer moves sats and burns the fee', () => {
    expect(
      effects({
        type: 'exchange_to_wallet',
        occurred_at: day,
        from_wallet: 1,
        to_wallet: 4,
        sats: 7,
        fee_sats: 3,
        amount: '1',
        currency: 'EUR',
      }),
    ).toEqual(new Map([[4, 7]]));
    const move = {
      type: 'wallet_to_wallet' as const,
      occurred_at: day,
      from_wallet: 4,
      to_wallet: 5,
      sats: 100,
      fee_sats: 10,
    };
    expect(decide({ kind: 'create', event: move }, state)).toEqual({
      ok: true,
      changes: {
        deltas: new Map([
          [4, -110],
          [5, 100],
        ]),
        from: new Map([[4, day]]),
        days: [
          { wallet: 4, day, delta: -110 },
          { wallet: 5, day, delta: 100 },
        ],
      },
    });
  });

  it('answers a replace as the old event withdrawn and the new recorded, checked from the earlier date', () => {
    const buy = {
      id: 9,
      type: 'exchange_to_wallet' as const,
      occurred_at: '2026-06-05',
      from_wallet: 1,
      to_wallet: 5,
      sats: 50,
      fee_sats: 0,
      amount: '1',
      currency: 'EUR' as const,
    };
    const moved = { ...buy, occurred_at: '2026-06-09', sats: 80 };
    const d = decide({ kind: 'replace', previous: buy, event: moved }, state);
    expect(d).toMatchObject({
      ok: true,
      changes: { deltas: new Map([[5, 30]]), from: new Map([[5, '2026-06-05']]) },
    });
    expect(decide({ kind: 'delete', previous: buy }, state)).toMatchObject({
      ok: true,
      changes: { deltas: new Map([[5, -50]]) },
    });
  });

  it('requires an exchange where the type names one, a wallet that exists, two different wallets', () => {
    const deposit = {
      type: 'bank_to_exchange' as const,
      occurred_at: day,
      wallet: 4,
      amount: '1',
      currency: 'DKK' as const,
    };
    expect(decide({ kind: 'create', event: deposit }, state)).toEqual({
      ok: false,
      violation: { kind: 'not_an_exchange', field: 'wallet', wallet: 4, name: 'w4' },
    });
    expect(decide({ kind: 'create', event: { ...deposit, wallet: 99 } }, state)).toEqual({
      ok: false,
      violation: { kind: 'unknown_wallet', field: 'wallet', wallet: 99 },
    });
    const loop = {
      type: 'wallet_to_wallet' as const,
      occurred_at: day,
      from_wallet: 4,
      to_wallet: 4,
      sats: 1,
      fee_sats: 0,
    };
    expect(decide({ kind: 'create', event: loop }, state)).toEqual({
      ok: false,
      violation: { kind: 'same_wallet' },
    });
  });

  it('refuses an event dated after today, and one that carries more sats than will ever exist', () => {
    const move = {
      type: 'wallet_to_wallet' as const,
      occurred_at: '2026-07-01',
      from_wallet: 4,
      to_wallet: 5,
      sats: 1,
      fee_sats: 0,
    };
    expect(decide({ kind: 'create', event: move }, state)).toMatchObject({
      ok: false,
      violation: { kind: 'future_date' },
    });
    const huge = { ...move, occurred_at: day, sats: 2_000_000_000_000_000, fee_sats: 200_000_000_000_000 };
    expect(decide({ kind: 'create', event: huge }, state)).toMatchObject({
      ok: false,
      violation: { kind: 'too_many_sats_in_event', sats: 2_200_000_000_000_000 },
    });
  });

  it('names the first day a running balance is below zero with the shortfall, and refuses a balance above MAX_SATS', () => {
    const w = state.wallets.get(4)!;
    expect(historyViolation(w, undefined)).toBeNull();
    expect(historyViolation(w, { day, lowest: -5 })).toEqual({
      kind: 'overdraft',
      wallet: 4,
      name: 'w4',
      date: day,
      shortfall: 5,
    });
    expect(historyViolation(w, { day, lowest: 0 })).toBeNull();
    const rich = {
      wallets: new Map([wallet(1, 'exchange'), wallet(4, 'wallet', 2_000_000_000_000_000)]),
      today: day,
    };
    const buy = {
      type: 'exchange_to_wallet' as const,
      occurred_at: day,
      from_wallet: 1,
      to_wallet: 4,
      sats: 100_000_000_000_001,
      fee_sats: 0,
      amount: '1',
      currency: 'EUR' as const,
    };
    expect(decide({ kind: 'create', event: buy }, rich)).toEqual({
      ok: false,
      violation: { kind: 'balance_too_large', wallet: 4, name: 'w4', balance: 2_100_000_000_000_001 },
    });
  });
});
