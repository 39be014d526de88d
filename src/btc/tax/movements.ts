/**
 * What the FIFO core of the Danish annual return takes and answers (docs/ledger.md, "Tax: the
 * year's figures for SKAT"). Pure: no database, clock or HTTP.
 *
 * The caller turns each ledger event into at most one movement, in the ledger's order
 * (`occurred_at`, then the event's id), with every amount already in DKK:
 *
 * | ledger event | movement |
 * |---|---|
 * | `exchange_buy`, `exchange_to_wallet` | `acquisition` of `sats` at `amount` (fees included) |
 * | `receive` kind `income` | `income` of `sats` at `amount`, or the day's value |
 * | `receive` kind `gift` or `unknown` | `acquisition` of `sats`, `cost_dkk` null until one is given |
 * | `exchange_sell` | `disposal` type `sale`, `proceeds_dkk` = `amount` (fees deducted) |
 * | `spend` | `disposal` type `spend` of `sats` + `fee_sats`, `proceeds_dkk` = `amount`, or the day's value of `sats` |
 * | `wallet_to_wallet`, one owner | `fee` when `fee_sats` > 0 (its day's value), else nothing |
 * | `wallet_to_wallet`, two owners | `transfer`: `succession` between spouses who live together, else a gift at the day's value |
 * | `bank_to_exchange` | nothing |
 *
 * Money is decimal text (DKK, rounded here to the øre, half up, once per row); sats are integers.
 */

export type Owner = string;

interface Dated {
  /** The ledger event the movement comes from. */
  event_id: number;
  /** Its Danish date, YYYY-MM-DD: the year of the return is its year. */
  occurred_at: string;
  /** Whose pool: the owner of the wallet the sats arrive in or leave. */
  owner: Owner;
}

/** Sats bought or received: a lot of `sats` at `cost_dkk`, null while the cost is unknown. */
export interface Acquisition extends Dated {
  kind: 'acquisition';
  sats: number;
  cost_dkk: string | null;
}

/** Sats received as pay, mining or staking: income of `value_dkk` and a lot at that cost. */
export interface IncomeMovement extends Dated {
  kind: 'income';
  sats: number;
  value_dkk: string;
}

/**
 * Sats that leave the household: `sats` given for `proceeds_dkk`, and `fee_sats` paid to the
 * network, drawn from the same lots, whose value is a cost of the disposal.
 */
export interface DisposalMovement extends Dated {
  kind: 'disposal';
  type: 'sale' | 'spend';
  sats: number;
  fee_sats: number;
  proceeds_dkk: string;
}

/** The network fee of a move between the owner's own wallets: a disposal at the day's value. */
export interface FeeMovement extends Dated {
  kind: 'fee';
  fee_sats: number;
  value_dkk: string;
}

/**
 * Sats moved from `owner` to `to_owner`. With `succession` (spouses who live together) the
 * receiver takes over the giver's lots with their cost and date, and the fee is a disposal of
 * the giver's at `fee_value_dkk`; without, the giver disposes of `sats` + `fee_sats` for
 * `value_dkk` (the value of `sats`) and the receiver gets a lot of `sats` at that value.
 */
export type TransferMovement = Dated & {
  kind: 'transfer';
  to_owner: Owner;
  sats: number;
  fee_sats: number;
} & ({ succession: true; fee_value_dkk: string | null } | { succession: false; value_dkk: string });

export type Movement = Acquisition | IncomeMovement | DisposalMovement | FeeMovement | TransferMovement;

/** Part of a lot that a disposal (or a transfer) took: whose acquisition, when, how much, at what cost. */
export interface LotDraw {
  event_id: number;
  occurred_at: string;
  sats: number;
  /** Null when the lot's cost is unknown. */
  cost_dkk: string | null;
}

export interface OpenLot extends LotDraw {
  owner: Owner;
}

export type DisposalType = 'sale' | 'spend' | 'gift' | 'fee';

export interface Disposal {
  owner: Owner;
  event_id: number;
  occurred_at: string;
  type: DisposalType;
  /** Every sat that left the pool, `fee_sats` of them to the network; the lots' sats sum to it. */
  sats: number;
  fee_sats: number;
  proceeds_dkk: string;
  /** Null (and so is the gain) when any lot drawn has an unknown cost. */
  cost_dkk: string | null;
  gain_dkk: string | null;
  lots: LotDraw[];
}

export interface IncomeRow {
  owner: Owner;
  event_id: number;
  occurred_at: string;
  sats: number;
  value_dkk: string;
}

/** The whole book after the movements: the open lots in FIFO order per owner, every disposal and income. */
export interface TaxBook {
  lots: OpenLot[];
  disposals: Disposal[];
  income: IncomeRow[];
}

/** One owner's figures for one year of the annual return. */
export interface YearFigures {
  year: number;
  owner: Owner;
  gains_dkk: string;
  losses_dkk: string;
  income_dkk: string;
  /** Gains plus income: "Anden personlig indkomst". */
  rubrik_20_dkk: string;
  /** The losses as a positive number: "Øvrige lønmodtagerudgifter". */
  rubrik_58_dkk: string;
  /** The acquisitions of unknown cost that a disposal of the year drew on, by event id. */
  unknown_cost: number[];
  /** False when a disposal of the year drew on an unknown cost (left out of the sums). */
  complete: boolean;
}

/**
 * Movements the core cannot book: out of order, a malformed amount, or more sats disposed of
 * than the owner's lots hold. The ledger prevents each (its order, its schemas, no balance below
 * zero), so this is a broken invariant of the caller, not a refusal to word for a client.
 */
export class TaxInputError extends Error {
  constructor(
    readonly event_id: number,
    detail: string,
  ) {
    super(`event ${event_id}: ${detail}`);
    this.name = 'TaxInputError';
  }
}
