import { describe, expect, it } from 'vitest';
import {
  decide,
  effects,
  evolve,
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
    expect(extra).toEqual({ status: 400, detail: 'body.amount: not a field of a wallet_to_wallet event' });
    const missing = parseEvent({
      type: 'exchange_to_wallet',
      occurred_at: '2026-01-02',
      from_wallet: 1,
      to_wallet: 4,
      sats: 1,
      amount: '1',
      currency: 'EUR',
    });
    expect(missing).toEqual({
      status: 400,
      detail: 'body.fee_sats: required for a exchange_to_wallet event',
    });
  });

  it('refuses amounts that are not positive decimals', () => {
    for (const amount of ['0', '0.000', '1e5', '-1', '1.123456789', ''])
      expect(
        isViolation(
          parseEvent({
            type: 'bank_to_exchange',
            occurred_at: '2026-01-02',
            wallet: 1,
            amount,
            currency: 'EUR',
          }),
        ),
      ).toBe(true);
  });
});

describe('decide and evolve', () => {
  it('applies SPEC’s effects: a buy adds to to_wallet, a transfer moves sats and burns the fee', () => {
    expect(
      effects({
        type: 'exchange_to_wallet',
        occurred_at: 'd',
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
      occurred_at: 'd',
      from_wallet: 4,
      to_wallet: 5,
      sats: 100,
      fee_sats: 10,
    };
    const after = evolve(state, { kind: 'recorded', event: move });
    expect([after.wallets.get(4)?.balance, after.wallets.get(5)?.balance]).toEqual([390, 100]);
    expect(evolve(after, { kind: 'withdrawn', event: move })).toEqual(state);
  });

  it('refuses a transfer beyond the balance, saying by how much', () => {
    const d = decide(
      {
        kind: 'create',
        event: {
          type: 'wallet_to_wallet',
          occurred_at: 'd',
          from_wallet: 4,
          to_wallet: 5,
          sats: 495,
          fee_sats: 10,
        },
      },
      state,
    );
    expect(d).toEqual({
      ok: false,
      violation: {
        status: 409,
        detail: 'wallet 4 (w4) would be 5 sats below zero: it holds 500 sats and the change takes 505',
      },
    });
  });

  it('requires an exchange where SPEC says so', () => {
    const d = decide(
      {
        kind: 'create',
        event: { type: 'bank_to_exchange', occurred_at: 'd', wallet: 4, amount: '1', currency: 'DKK' },
      },
      state,
    );
    expect(d).toMatchObject({
      ok: false,
      violation: { status: 422, detail: 'body.wallet: wallet 4 (w4) is not an exchange' },
    });
  });

  it('refuses deleting a buy whose sats have moved on', () => {
    const buy = {
      id: 9,
      type: 'exchange_to_wallet' as const,
      occurred_at: 'd',
      from_wallet: 1,
      to_wallet: 5,
      sats: 50,
      fee_sats: 0,
      amount: '1',
      currency: 'EUR' as const,
    };
    expect(decide({ kind: 'delete', previous: buy }, state)).toMatchObject({
      ok: false,
      violation: { status: 409 },
    });
    const funded = {
      wallets: new Map(state.wallets).set(5, { id: 5, name: 'w5', wallet_type: 'wallet', balance: 50 }),
    };
    expect(decide({ kind: 'delete', previous: buy }, funded)).toEqual({
      ok: true,
      changes: [{ kind: 'withdrawn', event: buy }],
    });
  });
});
