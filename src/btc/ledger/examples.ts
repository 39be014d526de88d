import type { EventType } from './events.js';

/** An example body of each event type, in an order the API reference can send them in. */
export const EXAMPLES: Record<EventType, { summary: string; value: Record<string, unknown> }> = {
  bank_to_exchange: {
    summary: 'money from the bank arrives on an exchange',
    value: {
      type: 'bank_to_exchange',
      occurred_at: '2025-01-15',
      wallet: 1,
      amount: '500.00',
      currency: 'EUR',
    },
  },
  exchange_to_wallet: {
    summary: 'sats bought on an exchange go to a wallet, with what they cost',
    value: {
      type: 'exchange_to_wallet',
      occurred_at: '2025-01-16',
      from_wallet: 1,
      to_wallet: 4,
      sats: 100_000,
      fee_sats: 1_000,
      amount: '85.50',
      currency: 'EUR',
    },
  },
  wallet_to_wallet: {
    summary: 'sats move from one wallet to another, less the network fee',
    value: {
      type: 'wallet_to_wallet',
      occurred_at: '2025-01-17',
      from_wallet: 4,
      to_wallet: 5,
      sats: 50_000,
      fee_sats: 500,
    },
  },
  exchange_buy: {
    summary: 'sats bought and kept on an exchange, with what they cost (fees included)',
    value: {
      type: 'exchange_buy',
      occurred_at: '2025-01-18',
      wallet: 1,
      sats: 200_000,
      amount: '170.00',
      currency: 'EUR',
    },
  },
  exchange_sell: {
    summary: 'sats sold on an exchange, with what they fetched (fees deducted)',
    value: {
      type: 'exchange_sell',
      occurred_at: '2025-01-19',
      wallet: 1,
      sats: 50_000,
      amount: '44.00',
      currency: 'EUR',
    },
  },
  spend: {
    summary: 'sats leave the household (a payment, a gift given); without an amount, at the day’s value',
    value: {
      type: 'spend',
      occurred_at: '2025-01-20',
      from_wallet: 4,
      sats: 20_000,
      fee_sats: 300,
    },
  },
  receive: {
    summary: 'sats arrive from outside: income (at its amount or the day’s value), a gift or unknown',
    value: {
      type: 'receive',
      occurred_at: '2025-01-21',
      to_wallet: 5,
      sats: 25_000,
      kind: 'income',
      amount: '21.50',
      currency: 'EUR',
    },
  },
};
