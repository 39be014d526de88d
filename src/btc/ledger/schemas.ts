import { Type, type Static } from 'typebox';
import { csvColumns, Format } from '../../http/csv.js';
import { Amount, Cursor, DAYS, Day as DayOf, Decimal, Name as NameOf, Text } from '../../http/types.js';
import { CURRENCIES, EVENT_TYPES } from './events.js';

const WalletType = Type.Union([Type.Literal('exchange'), Type.Literal('wallet')]);
const Id = Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 });
/** Wallet ids are SQL integers; a larger one is a 400, not a database error. */
const WalletId = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });
const Day = DayOf(DAYS.ledger);
const Money = Decimal('fiat amount, exact (SQL numeric)');

export const IdParams = Type.Object({ id: Id });
export const WalletIdParams = Type.Object({ id: WalletId });

export const Wallet = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  wallet_type: WalletType,
  balance: Type.Integer({ description: 'sats, derived from the events' }),
});
export const WalletList = Type.Array(Wallet);
export const WalletQuery = Type.Object({ type: Type.Optional(WalletType) }, { additionalProperties: false });
const Name = NameOf({ minLength: 1, maxLength: 100, description: 'the wallet name, unique' });
export const NewWallet = Type.Object(
  { name: Name, wallet_type: WalletType },
  { additionalProperties: false },
);
export const WalletPatch = Type.Object(
  { name: Type.Optional(Name), wallet_type: Type.Optional(WalletType) },
  { additionalProperties: false, minProperties: 1 },
);

/** Fields every event type may carry; which ones a type needs is checked per type in events.ts. */
export const EventBody = Type.Object(
  {
    type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    occurred_at: Day,
    wallet: Type.Optional(WalletId),
    from_wallet: Type.Optional(WalletId),
    to_wallet: Type.Optional(WalletId),
    sats: Type.Optional(Type.Integer({ minimum: 1, maximum: 2.1e15 })),
    fee_sats: Type.Optional(Type.Integer({ minimum: 0, maximum: 2.1e15 })),
    amount: Type.Optional(Amount('the fiat amount in `currency`')),
    currency: Type.Optional(Type.Union(CURRENCIES.map((c) => Type.Literal(c)))),
  },
  { additionalProperties: false },
);

export const Event = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  occurred_at: Type.String(),
  wallet: Type.Optional(Type.Integer()),
  from_wallet: Type.Optional(Type.Integer()),
  to_wallet: Type.Optional(Type.Integer()),
  sats: Type.Optional(Type.Integer()),
  fee_sats: Type.Optional(Type.Integer()),
  amount: Type.Optional(Money),
  currency: Type.Optional(Type.String()),
});

export type EventJson = Static<typeof Event>;

const Limit = Type.Integer({
  minimum: 1,
  maximum: 1000,
  default: 100,
  description: 'rows per page (JSON); format=csv answers every row the other filters select',
});

export const EventQuery = Type.Object(
  {
    type: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
    wallet: Type.Optional(WalletId),
    from: Type.Optional(Day),
    to: Type.Optional(Day),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
    format: Format,
  },
  { additionalProperties: false },
);
const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass as cursor for the next page; null on the last page',
});
export const EventPage = Type.Object({ items: Type.Array(Event), next_cursor: NextCursor });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Text({ minLength: 1, maxLength: 200 })),
});

/** The days of a read table, a page of it, or (format=csv) all of it. */
export const ListQuery = Type.Object(
  {
    from: Type.Optional(Day),
    to: Type.Optional(Day),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
    format: Format,
  },
  { additionalProperties: false },
);

export const Deposit = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  occurred_at: Type.String(),
  wallet: Type.Integer(),
  currency: Type.String(),
  amount: Money,
  amount_eur: Money,
  amount_dkk: Money,
  amount_usd: Money,
});
export const DepositTotal = Type.Object({ wallet: Type.Integer(), currency: Type.String(), amount: Money });
export const Buy = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  occurred_at: Type.String(),
  wallet: Type.Integer({ description: 'the exchange the sats were bought on' }),
  sats: Type.Integer(),
  fee_sats: Type.Integer(),
  amount_eur: Money,
});
export const DepositPage = Type.Object({ items: Type.Array(Deposit), next_cursor: NextCursor });
export const BuyPage = Type.Object({ items: Type.Array(Buy), next_cursor: NextCursor });

/** The CSV columns: the JSON field names, in the order the JSON answers them. */
export const CSV_COLUMNS = {
  events: csvColumns(Event),
  deposits: csvColumns(Deposit),
  buys: csvColumns(Buy),
} as const;

export const Rebuilt = Type.Object({ rebuilt: Type.Integer() });
