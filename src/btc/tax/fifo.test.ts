import { describe, expect, it } from 'vitest';
import { fifo } from './fifo.js';
import { TaxInputError, type Movement } from './movements.js';
import { yearFigures } from './year.js';

const BTC = 100_000_000;

const buy = (
  event_id: number,
  occurred_at: string,
  sats: number,
  cost_dkk: string | null,
  owner = 'Anna',
): Movement => ({
  kind: 'acquisition',
  event_id,
  occurred_at,
  owner,
  sats,
  cost_dkk,
});
const sell = (
  event_id: number,
  occurred_at: string,
  sats: number,
  proceeds_dkk: string,
  owner = 'Anna',
): Movement => ({
  kind: 'disposal',
  type: 'sale',
  event_id,
  occurred_at,
  owner,
  sats,
  fee_sats: 0,
  proceeds_dkk,
});

describe('fifo', () => {
  it("reproduces SKAT's example: 1 BTC for 300,000, another for 330,000, half sold for 170,000 gains 20,000", () => {
    const book = fifo([
      buy(1, '2025-01-10', BTC, '300000'),
      buy(2, '2025-02-10', BTC, '330000'),
      sell(3, '2025-03-10', BTC / 2, '170000'),
    ]);
    expect(book.disposals).toEqual([
      {
        owner: 'Anna',
        event_id: 3,
        occurred_at: '2025-03-10',
        type: 'sale',
        sats: BTC / 2,
        fee_sats: 0,
        proceeds_dkk: '170000.00',
        cost_dkk: '150000.00',
        gain_dkk: '20000.00',
        lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: BTC / 2, cost_dkk: '150000.00' }],
      },
    ]);
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: BTC / 2, cost_dkk: '150000.00' },
      { owner: 'Anna', event_id: 2, occurred_at: '2025-02-10', sats: BTC, cost_dkk: '330000.00' },
    ]);
    expect(yearFigures(book, 2025, 'Anna')).toMatchObject({
      gains_dkk: '20000.00',
      rubrik_20_dkk: '20000.00',
    });
  });

  it('reports a gain and a loss of one year apart, never netted', () => {
    const book = fifo([
      buy(1, '2025-01-02', 1_000_000, '6000.00'),
      buy(2, '2025-01-03', 1_000_000, '7000.00'),
      sell(3, '2025-04-01', 1_000_000, '7250.40'),
      sell(4, '2025-09-01', 1_000_000, '5100.15'),
    ]);
    expect(book.disposals.map((d) => d.gain_dkk)).toEqual(['1250.40', '-1899.85']);
    expect(yearFigures(book, 2025, 'Anna')).toEqual({
      year: 2025,
      owner: 'Anna',
      gains_dkk: '1250.40',
      losses_dkk: '1899.85',
      income_dkk: '0.00',
      rubrik_20_dkk: '1250.40',
      rubrik_58_dkk: '1899.85',
      unknown_cost: [],
      complete: true,
    });
  });

  it('draws one sale on lots bought on two exchanges and one that sits in a cold wallet: one pool per owner', () => {
    const book = fifo([
      buy(1, '2025-01-05', 300_000, '1950.00'), // bought on Kraken, kept there
      buy(2, '2025-01-20', 200_000, '1320.00'), // bought on Strike, withdrawn to the Trezor
      buy(3, '2025-02-11', 400_000, '2720.00'), // bought on Kraken, moved to the Trezor
      sell(4, '2025-06-30', 700_000, '5005.00'), // sold on Strike
    ]);
    const [sale] = book.disposals;
    expect(sale!.lots).toEqual([
      { event_id: 1, occurred_at: '2025-01-05', sats: 300_000, cost_dkk: '1950.00' },
      { event_id: 2, occurred_at: '2025-01-20', sats: 200_000, cost_dkk: '1320.00' },
      { event_id: 3, occurred_at: '2025-02-11', sats: 200_000, cost_dkk: '1360.00' },
    ]);
    expect(sale).toMatchObject({ cost_dkk: '4630.00', gain_dkk: '375.00' });
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 3, occurred_at: '2025-02-11', sats: 200_000, cost_dkk: '1360.00' },
    ]);
  });

  it("keeps two owners' pools apart: a sale draws on its owner's lots only", () => {
    const book = fifo([
      buy(1, '2025-01-05', 1_000_000, '5000.00', 'Anna'),
      buy(2, '2025-03-05', 1_000_000, '8000.00', 'Bo'),
      sell(3, '2025-05-05', 500_000, '3500.00', 'Bo'),
    ]);
    expect(book.disposals[0]).toMatchObject({ owner: 'Bo', cost_dkk: '4000.00', gain_dkk: '-500.00' });
    expect(book.disposals[0]!.lots.map((l) => l.event_id)).toEqual([2]);
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-01-05', sats: 1_000_000, cost_dkk: '5000.00' },
      { owner: 'Bo', event_id: 2, occurred_at: '2025-03-05', sats: 500_000, cost_dkk: '4000.00' },
    ]);
    expect(yearFigures(book, 2025, 'Anna')).toMatchObject({
      gains_dkk: '0.00',
      losses_dkk: '0.00',
      complete: true,
    });
    expect(yearFigures(book, 2025, 'Bo')).toMatchObject({ losses_dkk: '500.00', rubrik_58_dkk: '500.00' });
  });

  it("values a payment at the day's price as given, rounded half up once, and counts its network fee as a cost", () => {
    // 250,000 sats paid on a day BTC cost 612,345.67 DKK: 1,530.864175 DKK.
    const book = fifo([
      buy(1, '2025-01-05', 1_000_000, '5000.00'),
      {
        kind: 'disposal',
        type: 'spend',
        event_id: 2,
        occurred_at: '2025-07-01',
        owner: 'Anna',
        sats: 250_000,
        fee_sats: 1_000,
        proceeds_dkk: '1530.864175',
      },
    ]);
    expect(book.disposals[0]).toMatchObject({
      type: 'spend',
      sats: 251_000,
      fee_sats: 1_000,
      proceeds_dkk: '1530.86',
      cost_dkk: '1255.00',
      gain_dkk: '275.86',
    });
  });

  it('books income at its value, in rubrik 20, and as a lot at that cost', () => {
    const book = fifo([
      {
        kind: 'income',
        event_id: 1,
        occurred_at: '2025-03-15',
        owner: 'Anna',
        sats: 200_000,
        value_dkk: '1280.00',
      },
      sell(2, '2025-06-01', 100_000, '700.00'),
    ]);
    expect(book.income).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-03-15', sats: 200_000, value_dkk: '1280.00' },
    ]);
    expect(book.disposals[0]).toMatchObject({ cost_dkk: '640.00', gain_dkk: '60.00' });
    expect(yearFigures(book, 2025, 'Anna')).toMatchObject({
      gains_dkk: '60.00',
      income_dkk: '1280.00',
      rubrik_20_dkk: '1340.00',
    });
  });

  it('leaves the cost and gain of a sale of an unknown-cost arrival null, out of the sums, and the year incomplete', () => {
    const movements = (giftCost: string | null) => [
      buy(1, '2025-01-05', 100_000, '600.00'),
      buy(2, '2025-02-01', 300_000, giftCost), // a gift received, its cost not given
      sell(3, '2025-04-01', 100_000, '700.00'),
      sell(4, '2025-05-01', 200_000, '1300.00'),
    ];
    const book = fifo(movements(null));
    expect(book.disposals[1]).toMatchObject({ cost_dkk: null, gain_dkk: null });
    expect(book.disposals[1]!.lots).toEqual([
      { event_id: 2, occurred_at: '2025-02-01', sats: 200_000, cost_dkk: null },
    ]);
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 2, occurred_at: '2025-02-01', sats: 100_000, cost_dkk: null },
    ]);
    expect(yearFigures(book, 2025, 'Anna')).toMatchObject({
      gains_dkk: '100.00',
      unknown_cost: [2],
      complete: false,
    });
    // The same year once the gift's value on the day it arrived is given as its cost.
    const given = fifo(movements('1950.00'));
    expect(given.disposals[1]).toMatchObject({ cost_dkk: '1300.00', gain_dkk: '0.00' });
    expect(yearFigures(given, 2025, 'Anna')).toMatchObject({
      gains_dkk: '100.00',
      unknown_cost: [],
      complete: true,
    });
  });

  it('lets a spouse take over the lots moved, with their cost and date, ahead of her later lots; the fee is the giver’s disposal', () => {
    const book = fifo([
      buy(1, '2025-01-10', 1_000_000, '7000.00', 'Anna'),
      buy(2, '2025-03-01', 500_000, '4000.00', 'Bo'),
      {
        kind: 'transfer',
        event_id: 3,
        occurred_at: '2025-06-01',
        owner: 'Anna',
        to_owner: 'Bo',
        sats: 400_000,
        fee_sats: 1_000,
        succession: true,
        fee_value_dkk: '6.90',
      },
      sell(4, '2025-07-01', 450_000, '3150.00', 'Bo'),
    ]);
    expect(book.disposals[0]).toMatchObject({
      owner: 'Anna',
      type: 'fee',
      sats: 1_000,
      proceeds_dkk: '6.90',
      cost_dkk: '7.00',
      gain_dkk: '-0.10',
    });
    expect(book.disposals[1]!.lots).toEqual([
      { event_id: 1, occurred_at: '2025-01-10', sats: 400_000, cost_dkk: '2800.00' },
      { event_id: 2, occurred_at: '2025-03-01', sats: 50_000, cost_dkk: '400.00' },
    ]);
    expect(book.disposals[1]).toMatchObject({ owner: 'Bo', cost_dkk: '3200.00', gain_dkk: '-50.00' });
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: 599_000, cost_dkk: '4193.00' },
      { owner: 'Bo', event_id: 2, occurred_at: '2025-03-01', sats: 450_000, cost_dkk: '3600.00' },
    ]);
  });

  it('joins a part of a lot moved back to an owner who still holds the rest of it', () => {
    const book = fifo([
      buy(1, '2025-01-10', 3, '0.10', 'Anna'),
      {
        kind: 'transfer',
        event_id: 2,
        occurred_at: '2025-02-01',
        owner: 'Anna',
        to_owner: 'Bo',
        sats: 1,
        fee_sats: 0,
        succession: true,
        fee_value_dkk: null,
      },
      {
        kind: 'transfer',
        event_id: 3,
        occurred_at: '2025-03-01',
        owner: 'Bo',
        to_owner: 'Anna',
        sats: 1,
        fee_sats: 0,
        succession: true,
        fee_value_dkk: null,
      },
    ]);
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: 3, cost_dkk: '0.10' },
    ]);
  });

  it('makes a gift to an owner who is not a spouse a disposal at its value, fee included, and a new lot at that value', () => {
    const book = fifo([
      buy(1, '2025-01-10', 1_000_000, '7000.00', 'Anna'),
      {
        kind: 'transfer',
        event_id: 2,
        occurred_at: '2025-06-01',
        owner: 'Anna',
        to_owner: 'Carl',
        sats: 300_000,
        fee_sats: 500,
        succession: false,
        value_dkk: '2400.00',
      },
    ]);
    expect(book.disposals[0]).toMatchObject({
      owner: 'Anna',
      type: 'gift',
      sats: 300_500,
      fee_sats: 500,
      proceeds_dkk: '2400.00',
      cost_dkk: '2103.50',
      gain_dkk: '296.50',
    });
    expect(book.lots).toEqual([
      { owner: 'Anna', event_id: 1, occurred_at: '2025-01-10', sats: 699_500, cost_dkk: '4896.50' },
      { owner: 'Carl', event_id: 2, occurred_at: '2025-06-01', sats: 300_000, cost_dkk: '2400.00' },
    ]);
  });

  it("makes the network fee of a move between one's own wallets a disposal of the fee sats at their value", () => {
    const book = fifo([
      buy(1, '2025-01-10', 1_000_000, '7013.53'),
      {
        kind: 'fee',
        event_id: 2,
        occurred_at: '2025-02-20',
        owner: 'Anna',
        fee_sats: 1_500,
        value_dkk: '10.35',
      },
    ]);
    expect(book.disposals).toEqual([
      {
        owner: 'Anna',
        event_id: 2,
        occurred_at: '2025-02-20',
        type: 'fee',
        sats: 1_500,
        fee_sats: 1_500,
        proceeds_dkk: '10.35',
        cost_dkk: '10.52',
        gain_dkk: '-0.17',
        lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: 1_500, cost_dkk: '10.52' }],
      },
    ]);
  });

  it('splits a lot drawn a sat at a time so that its parts sum to its cost: 0.10 DKK over 3 sats is 0.03, 0.04, 0.03', () => {
    const book = fifo([
      buy(1, '2025-01-10', 3, '0.10'),
      sell(2, '2025-02-01', 1, '0.05'),
      sell(3, '2025-02-02', 1, '0.05'),
      sell(4, '2025-02-03', 1, '0.05'),
    ]);
    expect(book.disposals.map((d) => d.cost_dkk)).toEqual(['0.03', '0.04', '0.03']);
    expect(book.lots).toEqual([]);
  });

  it('rounds each amount half up to the øre once', () => {
    const book = fifo([buy(1, '2025-01-10', 2, '0.125'), sell(2, '2025-02-01', 2, '10.005')]);
    expect(book.disposals[0]).toMatchObject({ proceeds_dkk: '10.01', cost_dkk: '0.13', gain_dkk: '9.88' });
  });

  it('answers zeros and complete for a year without rows', () => {
    expect(yearFigures(fifo([]), 2024, 'Anna')).toMatchObject({
      gains_dkk: '0.00',
      rubrik_20_dkk: '0.00',
      rubrik_58_dkk: '0.00',
      complete: true,
    });
  });

  describe('refuses movements the ledger never gives', () => {
    const cases: [string, Movement[], RegExp][] = [
      [
        'a disposal of more sats than the open lots hold',
        [buy(1, '2025-01-01', 100, '1'), sell(2, '2025-02-01', 150, '2')],
        /^event 2: Anna disposes of 50 sats more than the open lots hold$/,
      ],
      [
        'movements out of order',
        [buy(2, '2025-01-01', 100, '1'), buy(1, '2025-01-01', 100, '1')],
        /^event 1: comes after event 2/,
      ],
      ['a negative amount', [buy(1, '2025-01-01', 100, '-1')], /cost_dkk is not an amount of DKK ≥ 0: -1/],
      ['text that is no amount', [buy(1, '2025-01-01', 100, '1,5')], /cost_dkk is not an amount/],
      [
        'sats that are no positive integer',
        [buy(1, '2025-01-01', 1.5, '1')],
        /sats must be a positive integer/,
      ],
      ['a date that is no date', [buy(1, '1.1.2025', 1, '1')], /occurred_at is not a date/],
      [
        'a transfer to its own owner',
        [
          buy(1, '2025-01-01', 1, '1'),
          {
            kind: 'transfer',
            event_id: 2,
            occurred_at: '2025-01-02',
            owner: 'Anna',
            to_owner: 'Anna',
            sats: 1,
            fee_sats: 0,
            succession: false,
            value_dkk: '1',
          },
        ],
        /between two owners/,
      ],
      [
        'a fee without its value',
        [
          buy(1, '2025-01-01', 10, '1'),
          {
            kind: 'transfer',
            event_id: 2,
            occurred_at: '2025-01-02',
            owner: 'Anna',
            to_owner: 'Bo',
            sats: 1,
            fee_sats: 1,
            succession: true,
            fee_value_dkk: null,
          },
        ],
        /a fee needs fee_value_dkk/,
      ],
    ];
    it.each(cases)('%s', (_, movements, message) => {
      expect(() => fifo(movements)).toThrow(TaxInputError);
      expect(() => fifo(movements)).toThrow(message);
    });
  });
});
