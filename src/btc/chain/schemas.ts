import { Type, type Static } from 'typebox';
import { Amount, DAYS, Day as DayOf, Nullable, Text } from '../../http/types.js';

const WalletId = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });
const Day = DayOf(DAYS.ledger);
const Sats = Type.Integer({ minimum: 1, maximum: 2.1e15 });
const FeeSats = Type.Integer({ minimum: 0, maximum: 2.1e15 });
const Currency = Type.Union((['EUR', 'DKK', 'USD'] as const).map((c) => Type.Literal(c)));
const KINDS = ['xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub', 'descriptor', 'addresses'] as const;

export const WalletIdParams = Type.Object({ id: WalletId });

/**
 * A watch key as PATCH /api/wallets/:id takes it: an account xpub/ypub/zpub (tpub/upub/vpub), a
 * descriptor of one key, addresses in one text, or a list of addresses; null removes it.
 */
export const WatchInput = Nullable(
  Type.Union([
    Text({ minLength: 1, maxLength: 100_000 }),
    Type.Array(Text({ minLength: 14, maxLength: 100 }), { minItems: 1, maxItems: 1000 }),
  ]),
  {
    description:
      'the watch key: an account xpub, ypub or zpub (tpub, upub, vpub on test networks), a descriptor pkh/sh(wpkh)/wpkh/tr of one key (with or without /<0;1>/*), or a list of addresses; null removes it. Never answered: GET answers its kind, first address and fingerprint',
  },
);

/** What the API shows of a watch key: never the key. */
export const WatchFace = Type.Object({
  kind: Type.Unsafe<(typeof KINDS)[number]>(Type.Union(KINDS.map((k) => Type.Literal(k)))),
  first_address: Type.String(),
  fingerprint: Type.String({
    description: 'the first 4 bytes of HASH160 of the key (BIP32), or of SHA-256 of the address list, in hex',
  }),
});

/**
 * The event bodies a transaction is suggested as, each of which `POST /api/events` takes as it
 * is: `wallet_to_wallet`, and `receive` and `spend` for sats from and to outside the household
 * (docs/chain.md).
 */
export const ReceiveBody = Type.Object(
  {
    type: Type.Literal('receive'),
    occurred_at: Day,
    to_wallet: WalletId,
    sats: Sats,
    kind: Type.Union([Type.Literal('income'), Type.Literal('gift'), Type.Literal('unknown')]),
    amount: Type.Optional(Amount('what the sats were worth in `currency`')),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export const SpendBody = Type.Object(
  {
    type: Type.Literal('spend'),
    occurred_at: Day,
    from_wallet: WalletId,
    sats: Sats,
    fee_sats: FeeSats,
    amount: Type.Optional(Amount('what the sats were worth in `currency`')),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export const MoveBody = Type.Object(
  {
    type: Type.Literal('wallet_to_wallet'),
    occurred_at: Day,
    from_wallet: WalletId,
    to_wallet: WalletId,
    sats: Sats,
    fee_sats: FeeSats,
  },
  { additionalProperties: false },
);
export const SuggestedEvent = Type.Union([ReceiveBody, SpendBody, MoveBody]);

export const ChainTransaction = Type.Object({
  txid: Type.String(),
  time: Type.String({
    description: 'the block’s time, or when a scan first saw it unconfirmed (ISO 8601, UTC)',
  }),
  confirmed: Type.Boolean(),
  net_sats: Type.Integer({ description: 'sats into the wallet less sats out of it, the fee included' }),
  fee_sats: Type.Integer({ description: 'the fee, when the wallet paid it (funded every input); else 0' }),
  event_id: Nullable(Type.Integer(), {
    description: 'the ledger event that records it; null when unmatched',
  }),
  event_ids: Type.Array(Type.Integer(), {
    description: 'every event that records it (several for one split into moves)',
  }),
});

export const ChainComparison = Type.Object({
  wallet: Type.Integer(),
  watch: WatchFace,
  scanned_at: Nullable(Type.String(), { description: 'the last complete scan; null before the first' }),
  chain_sats: Nullable(Type.Integer(), { description: 'confirmed sats on the wallet’s addresses' }),
  mempool_sats: Nullable(Type.Integer(), {
    description: 'unconfirmed change: below zero while a spend waits',
  }),
  ledger_sats: Type.Integer({ description: 'the wallet’s balance in the ledger' }),
  difference_sats: Nullable(Type.Integer(), {
    description:
      'chain_sats + mempool_sats − ledger_sats: above zero when the chain holds sats the ledger lacks',
  }),
  gap_limit: Type.Integer(),
  addresses_used: Type.Integer(),
  transactions: Type.Array(ChainTransaction, { description: 'newest first' }),
  unmatched: Type.Array(Type.String(), { description: 'txids no event records, oldest first' }),
  suggestions: Type.Array(SuggestedEvent, {
    description:
      'the bodies of POST /api/events that would record the unmatched transactions, in their order (oldest first, so that each can be posted in turn)',
  }),
});
export type ChainComparisonJson = Static<typeof ChainComparison>;
