import { Big } from 'big.js';
import { describe, expect, it } from 'vitest';
import { fifo } from './fifo.js';
import type { Movement } from './movements.js';
import { allYearFigures, yearFigures } from './year.js';

// The worked year of docs/ledger.md ("Tax: the year's figures for SKAT"), figure by figure. The
// caller values each event in DKK: an amount in EUR at the EUR/DKK rate of its day, an event
// without an amount at the BTC price in DKK of its day; the core rounds each once.
const eur = (amount: string, eurDkk: string) => new Big(amount).times(eurDkk).toFixed();
const atPrice = (sats: number, btcDkk: string) => new Big(sats).times(btcDkk).div(100_000_000).toFixed();

const at = (event_id: number, occurred_at: string, owner: string) => ({ event_id, occurred_at, owner });

const year: Movement[] = [
  // 1: Anna buys 0.1 BTC on Kraken for 9,400.00 EUR (EUR/DKK 7.4612)
  {
    kind: 'acquisition',
    ...at(1, '2025-01-10', 'Anna'),
    sats: 10_000_000,
    cost_dkk: eur('9400.00', '7.4612'),
  },
  // 2: Anna buys on Strike for 36,000.00 DKK, recorded as it reaches her Trezor (2,000 sats fee included)
  { kind: 'acquisition', ...at(2, '2025-02-03', 'Anna'), sats: 5_000_000, cost_dkk: '36000.00' },
  // 3: Kraken → Trezor, 6,000,000 sats and a fee of 1,500 sats (BTC 690,000.00 DKK that day)
  { kind: 'fee', ...at(3, '2025-02-20', 'Anna'), fee_sats: 1_500, value_dkk: atPrice(1_500, '690000.00') },
  // 4: Anna is paid 200,000 sats into her Trezor (BTC 640,000.00 DKK that day)
  { kind: 'income', ...at(4, '2025-03-15', 'Anna'), sats: 200_000, value_dkk: atPrice(200_000, '640000.00') },
  // 5: Bo's parent gives him 1,000,000 sats on Coinbase, of unknown cost
  { kind: 'acquisition', ...at(5, '2025-04-02', 'Bo'), sats: 1_000_000, cost_dkk: null },
  // 6: Anna sells 3,000,000 sats on Kraken for 3,015.00 EUR (7.4620)
  {
    kind: 'disposal',
    type: 'sale',
    ...at(6, '2025-05-20', 'Anna'),
    sats: 3_000_000,
    fee_sats: 0,
    proceeds_dkk: eur('3015.00', '7.4620'),
  },
  // 7: Bo sells 400,000 sats on Coinbase for 380.00 EUR (7.4590)
  {
    kind: 'disposal',
    type: 'sale',
    ...at(7, '2025-06-18', 'Bo'),
    sats: 400_000,
    fee_sats: 0,
    proceeds_dkk: eur('380.00', '7.4590'),
  },
  // 8: Anna sells 900,000 sats on Kraken for 723.00 EUR (7.4630)
  {
    kind: 'disposal',
    type: 'sale',
    ...at(8, '2025-08-12', 'Anna'),
    sats: 900_000,
    fee_sats: 0,
    proceeds_dkk: eur('723.00', '7.4630'),
  },
  // 9: Anna pays 6,500,000 sats from her Trezor, fee 3,000 sats, no amount (BTC 780,000.00 DKK)
  {
    kind: 'disposal',
    type: 'spend',
    ...at(9, '2025-10-01', 'Anna'),
    sats: 6_500_000,
    fee_sats: 3_000,
    proceeds_dkk: atPrice(6_500_000, '780000.00'),
  },
  // 10: Anna moves 1,000,000 sats to her husband Bo's Ledger, fee 1,000 sats (BTC 710,000.00 DKK)
  {
    kind: 'transfer',
    ...at(10, '2025-11-05', 'Anna'),
    to_owner: 'Bo',
    sats: 1_000_000,
    fee_sats: 1_000,
    succession: true,
    fee_value_dkk: atPrice(1_000, '710000.00'),
  },
];

const row = (d: {
  event_id: number;
  type: string;
  sats: number;
  proceeds_dkk: string;
  cost_dkk: string | null;
  gain_dkk: string | null;
}) => [d.event_id, d.type, d.sats, d.proceeds_dkk, d.cost_dkk, d.gain_dkk] as const;

describe('the worked year of the docs', () => {
  const book = fifo(year);

  it('has the disposals of the table, each with its proceeds, cost and gain', () => {
    expect(book.disposals.map(row)).toEqual([
      [3, 'fee', 1_500, '10.35', '10.52', '-0.17'],
      [6, 'sale', 3_000_000, '22497.93', '21040.58', '1457.35'],
      [7, 'sale', 400_000, '2834.42', null, null],
      [8, 'sale', 900_000, '5395.75', '6312.18', '-916.43'],
      [9, 'spend', 6_503_000, '50700.00', '45684.40', '5015.60'],
      [10, 'fee', 1_000, '7.10', '7.20', '-0.10'],
    ]);
  });

  it('draws the payment on the rest of the Kraken lot and on the Strike lot', () => {
    expect(book.disposals.find((d) => d.event_id === 9)!.lots).toEqual([
      { event_id: 1, occurred_at: '2025-01-10', sats: 6_098_500, cost_dkk: '42772.00' },
      { event_id: 2, occurred_at: '2025-02-03', sats: 404_500, cost_dkk: '2912.40' },
    ]);
  });

  it('splits the Kraken lot into parts that sum to its cost: 10.52 + 21,040.58 + 6,312.18 + 42,772.00 = 70,135.28', () => {
    const parts = book.disposals.flatMap((d) => d.lots).filter((l) => l.event_id === 1);
    expect(parts.map((l) => [l.sats, l.cost_dkk])).toEqual([
      [1_500, '10.52'],
      [3_000_000, '21040.58'],
      [900_000, '6312.18'],
      [6_098_500, '42772.00'],
    ]);
    expect(parts.reduce((s, l) => s.plus(l.cost_dkk!), new Big(0)).toFixed(2)).toBe('70135.28');
  });

  it("leaves the open lots of the table: Bo's taken-over lot ahead of his gift", () => {
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 2, occurred_at: '2025-02-03', sats: 3_594_500, cost_dkk: '25880.40' },
      { owner: 'Anna', event_id: 4, occurred_at: '2025-03-15', sats: 200_000, cost_dkk: '1280.00' },
      { owner: 'Bo', event_id: 2, occurred_at: '2025-02-03', sats: 1_000_000, cost_dkk: '7200.00' },
      { owner: 'Bo', event_id: 5, occurred_at: '2025-04-02', sats: 600_000, cost_dkk: null },
    ]);
  });

  it("gives Anna's and Bo's figures for 2025", () => {
    expect(allYearFigures(book)).toEqual([
      {
        year: 2025,
        owner: 'Anna',
        gains_dkk: '6472.95',
        losses_dkk: '916.70',
        income_dkk: '1280.00',
        rubrik_20_dkk: '7752.95',
        rubrik_58_dkk: '916.70',
        unknown_cost: [],
        complete: true,
      },
      {
        year: 2025,
        owner: 'Bo',
        gains_dkk: '0.00',
        losses_dkk: '0.00',
        income_dkk: '0.00',
        rubrik_20_dkk: '0.00',
        rubrik_58_dkk: '0.00',
        unknown_cost: [5],
        complete: false,
      },
    ]);
  });

  it("completes Bo's year once the gift is given its value on the day it arrived (650,000.00 DKK a BTC)", () => {
    const given = fifo(
      year.map((m) => (m.event_id === 5 ? { ...m, cost_dkk: atPrice(1_000_000, '650000.00') } : m)),
    );
    expect(given.disposals.find((d) => d.event_id === 7)).toMatchObject({
      cost_dkk: '2600.00',
      gain_dkk: '234.42',
    });
    expect(yearFigures(given, 2025, 'Bo')).toMatchObject({
      gains_dkk: '234.42',
      rubrik_20_dkk: '234.42',
      complete: true,
    });
  });
});
