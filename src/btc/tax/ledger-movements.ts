import type { Movement, Owner } from './movements.js';

/**
 * A ledger event as the tax feature reads it (repository.ts, `taxEvents`): amounts already in DKK
 * and the owners of the wallets it names. The day's values are exact products (numeric text).
 */
export interface TaxEventRow {
  id: number;
  /** The event's date (the ledger keeps Danish dates). */
  occurred_at: string;
  type: string;
  /** A receive's: income, gift or unknown. */
  kind: string | null;
  sats: number | null;
  fee_sats: number | null;
  /** Whether the event carries an amount (a spend's and a receive's may not). */
  has_amount: boolean;
  /** `amount` in DKK at the ledger's stored rates of the event's day; null without them. */
  amount_dkk: string | null;
  from_owner: Owner | null;
  to_owner: Owner | null;
  /** `sats` and `fee_sats` at the day's BTC price in DKK; null while the day has no price. */
  sats_value_dkk: string | null;
  fee_value_dkk: string | null;
}

/** Whether a move between two owners is between spouses who live together (TAX_SPOUSES). */
export type Spouses = (a: Owner, b: Owner) => boolean;

export function spousesOf(pairs: readonly (readonly [Owner, Owner])[]): Spouses {
  const of = new Map<Owner, Owner>();
  for (const [a, b] of pairs) of.set(a, b).set(b, a);
  return (a, b) => of.get(a) === b;
}

/** A value the row lacks: the ledger's rates of its day, or the day's BTC price. */
export class MissingValue extends Error {
  constructor(
    readonly event_id: number,
    readonly day: string,
    readonly what: 'rates' | 'price',
  ) {
    super(`event ${event_id}: no ${what === 'rates' ? 'currency rates' : 'BTC price'} stored for ${day}`);
    this.name = 'MissingValue';
  }
}

/**
 * What a ledger event is for the annual return: at most one movement (docs/ledger.md, "What the
 * core takes and answers"). One arm per event type; a type the ledger gains needs its arm here,
 * and its day's value in `taxEvents` / `daysNeedingPrice` when it can come without an amount.
 */
export function movementOf(e: TaxEventRow, spouses: Spouses): Movement | null {
  const at = { event_id: e.id, occurred_at: e.occurred_at };
  const valued = (text: string | null, what: 'rates' | 'price') => {
    if (text === null) throw new MissingValue(e.id, e.occurred_at, what);
    return text;
  };
  switch (e.type) {
    case 'bank_to_exchange':
      return null;
    case 'exchange_to_wallet':
      // A purchase recorded as it reaches the wallet: the sats are the receiving wallet's owner's.
      return {
        kind: 'acquisition',
        ...at,
        owner: e.to_owner!,
        sats: e.sats!,
        cost_dkk: valued(e.amount_dkk, 'rates'),
      };
    case 'wallet_to_wallet': {
      const owner = e.from_owner!;
      const to_owner = e.to_owner!;
      const fee_sats = e.fee_sats!;
      if (owner === to_owner)
        return fee_sats > 0
          ? { kind: 'fee', ...at, owner, fee_sats, value_dkk: valued(e.fee_value_dkk, 'price') }
          : null;
      const move = { kind: 'transfer' as const, ...at, owner, to_owner, sats: e.sats!, fee_sats };
      return spouses(owner, to_owner)
        ? {
            ...move,
            succession: true,
            fee_value_dkk: fee_sats > 0 ? valued(e.fee_value_dkk, 'price') : null,
          }
        : { ...move, succession: false, value_dkk: valued(e.sats_value_dkk, 'price') };
    }
    case 'exchange_buy':
      return {
        kind: 'acquisition',
        ...at,
        owner: e.from_owner!,
        sats: e.sats!,
        cost_dkk: valued(e.amount_dkk, 'rates'),
      };
    case 'exchange_sell':
      return {
        kind: 'disposal',
        ...at,
        owner: e.from_owner!,
        type: 'sale',
        sats: e.sats!,
        fee_sats: 0,
        proceeds_dkk: valued(e.amount_dkk, 'rates'),
      };
    case 'spend':
      return {
        kind: 'disposal',
        ...at,
        owner: e.from_owner!,
        type: 'spend',
        sats: e.sats!,
        fee_sats: e.fee_sats!,
        proceeds_dkk: e.has_amount ? valued(e.amount_dkk, 'rates') : valued(e.sats_value_dkk, 'price'),
      };
    case 'receive': {
      const given = e.has_amount ? valued(e.amount_dkk, 'rates') : null;
      if (e.kind === 'income')
        return {
          kind: 'income',
          ...at,
          owner: e.to_owner!,
          sats: e.sats!,
          value_dkk: given ?? valued(e.sats_value_dkk, 'price'),
        };
      // A gift or an unknown arrival: a lot whose cost stays unknown until one is given.
      return { kind: 'acquisition', ...at, owner: e.to_owner!, sats: e.sats!, cost_dkk: given };
    }
    default:
      throw new Error(`tax: event ${e.id} is of a type the tax feature has no movement for: ${e.type}`);
  }
}
