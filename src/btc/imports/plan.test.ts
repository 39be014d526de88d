import { describe, expect, it } from 'vitest';
import type { Movement } from './movements.js';
import { plan, type DayRates, type PlanInput, type StoredLot } from './plan.js';

const t = (iso: string) => Date.parse(iso);
const lot = (
  line: number,
  reference: string,
  iso: string,
  sats: number,
  amount: string,
  currency = 'EUR',
): Movement => ({
  kind: 'lot',
  line,
  reference,
  at: t(iso),
  day: iso.slice(0, 10),
  sats,
  amount,
  currency: currency as 'EUR',
});
const withdrawal = (
  line: number,
  reference: string,
  iso: string,
  sats: number,
  fee_sats: number,
): Movement => ({
  kind: 'withdrawal',
  line,
  reference,
  at: t(iso),
  day: iso.slice(0, 10),
  sats,
  fee_sats,
});
/** Round figures, so the expected amounts can be worked out by hand. */
const RATES = new Map<string, DayRates>([
  ['2025-03-05', { usd_eur: '0.9000', eur_dkk: '7.4600' }],
  ['2025-03-10', { usd_eur: '0.9000', eur_dkk: '7.4600' }],
]);

function run(movements: Movement[], extra: Partial<PlanInput> = {}) {
  return plan({
    movements,
    exchange: 1,
    to_wallet: 4,
    knownEvents: new Set(),
    knownLots: new Set(),
    openLots: [],
    rates: RATES,
    ...extra,
  });
}

const amounts = (p: ReturnType<typeof run>) =>
  p.events.map((e) => (e.event.type === 'exchange_to_wallet' ? e.event.amount : null));

describe('the FIFO cost of a withdrawal', () => {
  it('takes the oldest lots first, the fee sats included, exact and rounded to the cent once', () => {
    const p = run([
      lot(5, 'T1', '2025-01-11T12:00:00Z', 500_000, '401.04'),
      lot(7, 'T2', '2025-02-01T08:00:00Z', 300_000, '300.78'),
      // 610,000 sats: all of T1 (401.04) and 110,000 of T2's 300,000 (110.286): 511.326.
      withdrawal(8, 'W1', '2025-02-10T10:00:00Z', 600_000, 10_000),
      // 181,000 of T2's 300,000 at 300.78: 181.4706.
      withdrawal(9, 'W2', '2025-02-11T10:00:00Z', 180_000, 1_000),
    ]);
    expect(p.problems).toEqual([]);
    expect(amounts(p)).toEqual(['511.33', '181.47']);
    expect(p.events[0]!.event).toEqual({
      type: 'exchange_to_wallet',
      occurred_at: '2025-02-10',
      from_wallet: 1,
      to_wallet: 4,
      sats: 600_000,
      fee_sats: 10_000,
      amount: '511.33',
      currency: 'EUR',
    });
    expect(p.events.map((e) => e.takes)).toEqual([
      [
        { lot: { planned: 0 }, sats: 500_000 },
        { lot: { planned: 1 }, sats: 110_000 },
      ],
      [{ lot: { planned: 1 }, sats: 181_000 }],
    ]);
  });

  it('converts lots in DKK and USD with the rates of their own day', () => {
    const p = run([
      // 250.65 USD at 0.9 = 225.585 EUR; 1002.60 DKK / 7.46 = 134.39678… EUR.
      lot(2, 'TU', '2025-03-05T08:00:00Z', 250_000, '250.65', 'USD'),
      lot(3, 'TD', '2025-03-10T08:00:00Z', 200_000, '1002.60', 'DKK'),
      // 100,000 of TU: 90.234.
      withdrawal(4, 'W1', '2025-03-11T08:00:00Z', 100_000, 0),
      // 150,000 of TU (135.351) and 100,000 of TD (67.19839…): 202.54939….
      withdrawal(5, 'W2', '2025-03-12T08:00:00Z', 249_000, 1_000),
    ]);
    expect(amounts(p)).toEqual(['90.23', '202.55']);
  });

  it('rounds an exact half cent up, where a float would have lost it', () => {
    // 100,000 of 200,000 sats bought for 100.01: exactly 50.005.
    const p = run([
      lot(2, 'T', '2025-01-01T08:00:00Z', 200_000, '100.01'),
      withdrawal(3, 'W', '2025-01-02T08:00:00Z', 100_000, 0),
    ]);
    expect(amounts(p)).toEqual(['50.01']);
  });

  it('takes stored lots before new ones, and never a lot bought after the withdrawal', () => {
    const stored: StoredLot = {
      id: 7,
      reference: 'T0',
      at: t('2025-01-01T00:00:00Z'),
      day: '2025-01-01',
      sats: 1_000_000,
      remaining: 100_000,
      amount: '500.00',
      currency: 'EUR',
    };
    const p = run(
      [
        withdrawal(2, 'W', '2025-01-05T00:00:00Z', 150_000, 0),
        lot(3, 'T9', '2025-01-06T00:00:00Z', 1_000_000, '900.00'),
      ],
      { openLots: [stored] },
    );
    expect(p.problems).toEqual([
      {
        line: 2,
        reason:
          'withdraws 150000 sats (150000 and 0 fee) but the lots bought on the exchange up to then hold only 100000 more',
      },
    ]);
  });

  it('refuses a withdrawal that would cost less than half a cent', () => {
    const p = run([
      lot(2, 'T', '2025-01-01T08:00:00Z', 100_000_000, '100.00'),
      withdrawal(3, 'W', '2025-01-02T08:00:00Z', 4, 0),
    ]);
    expect(p.problems).toEqual([
      {
        line: 3,
        reason: 'the sats that left cost less than half a cent; a ledger event needs a positive amount',
      },
    ]);
  });

  it('counts what is already stored as duplicates, and takes no sats for a stored withdrawal', () => {
    const p = run(
      [
        lot(2, 'T1', '2025-01-01T08:00:00Z', 300_000, '300.00'),
        withdrawal(3, 'W1', '2025-01-02T08:00:00Z', 100_000, 0),
        withdrawal(4, 'W2', '2025-01-03T08:00:00Z', 100_000, 0),
      ],
      {
        knownLots: new Set(['T1']),
        knownEvents: new Set(['W1']),
        openLots: [
          {
            id: 3,
            reference: 'T1',
            at: t('2025-01-01T08:00:00Z'),
            day: '2025-01-01',
            sats: 300_000,
            remaining: 200_000,
            amount: '300.00',
            currency: 'EUR',
          },
        ],
      },
    );
    expect(p.duplicates).toBe(2);
    expect(p.lots).toEqual([]);
    expect(p.events.map((e) => [e.reference, e.takes])).toEqual([
      ['W2', [{ lot: { stored: 3 }, sats: 100_000 }]],
    ]);
    expect(amounts(p)).toEqual(['100.00']);
  });
});
