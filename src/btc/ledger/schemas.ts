import { Type, type Static } from 'typebox';
import { csvColumns, CsvQuery } from '../../http/csv.js';
import {
  Amount,
  Cursor,
  DAYS,
  Day as DayOf,
  Decimal,
  Name as NameOf,
  Nullable,
  Text,
} from '../../http/types.js';
import { WatchFace, WatchInput } from '../chain/schemas.js';
import {
  CURRENCIES,
  EVENT_FIELDS,
  EVENT_OPTIONAL,
  EVENT_TYPES,
  RECEIVE_KINDS,
  type EventType,
} from './events.js';
import { EXAMPLES } from './examples.js';

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
  owner: Type.String({ description: 'whose FIFO pool its sats are in (GET /api/tax/{year})' }),
  watch: Type.Optional(WatchFace),
  chain_sats: Type.Optional(
    Nullable(Type.Integer(), {
      description: 'a watched wallet’s confirmed sats on the chain; null before a scan',
    }),
  ),
  difference_sats: Type.Optional(
    Nullable(Type.Integer(), {
      description:
        'a watched wallet’s chain sats (unconfirmed included) less its balance; null before a scan',
    }),
  ),
});
export const WalletList = Type.Array(Wallet);
export const WalletQuery = Type.Object({ type: Type.Optional(WalletType) }, { additionalProperties: false });
const Name = NameOf({ minLength: 1, maxLength: 100, description: 'the wallet name, unique' });
/** No `,` or `=`: TAX_SPOUSES lists owners as `Anna=Bo,…`. */
const OWNER_TEXT =
  'whose FIFO pool the sats are in for the annual return: a short name without "," or "="; Unicode NFC, without control or invisible characters';
const OwnerOf = (description: string) =>
  Type.String({ minLength: 1, maxLength: 40, pattern: '^[^,=]+$', 'x-text': 'name', description });
export const Owner = OwnerOf(OWNER_TEXT);
export const NewWallet = Type.Object(
  {
    name: Name,
    wallet_type: WalletType,
    owner: Type.Optional(OwnerOf(`${OWNER_TEXT}; "household" unless given`)),
  },
  { additionalProperties: false },
);
export const WalletPatch = Type.Object(
  {
    name: Type.Optional(Name),
    wallet_type: Type.Optional(WalletType),
    owner: Type.Optional(Owner),
    watch: Type.Optional(WatchInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

const EventFields = {
  wallet: WalletId,
  from_wallet: WalletId,
  to_wallet: WalletId,
  sats: Type.Integer({ minimum: 1, maximum: 2.1e15 }),
  fee_sats: Type.Integer({ minimum: 0, maximum: 2.1e15 }),
  amount: Amount('the fiat amount in `currency`'),
  currency: Type.Union(CURRENCIES.map((c) => Type.Literal(c))),
  kind: Type.Union(
    RECEIVE_KINDS.map((k) => Type.Literal(k)),
    { description: 'what sats from outside are: income (pay, staking), a gift, or unknown' },
  ),
};

/**
 * What the validator checks of an event body: every field any type may carry, each of its own
 * shape; which ones a type carries is the ledger's rule (parseEvent), worded by the ledger
 * (`body.wallet: not a field of a exchange_to_wallet event`).
 */
export const EventEnvelope = Type.Object(
  {
    type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    occurred_at: Day,
    ...Object.fromEntries(Object.entries(EventFields).map(([k, v]) => [k, Type.Optional(v)])),
  },
  { additionalProperties: false },
);

/**
 * One event type's body: `type`, `occurred_at` and the fields of that type, required but for
 * those it may leave out together (a spend's or a receive's amount and currency).
 */
function bodyOf(type: EventType) {
  const field = (f: string) => EventFields[f as keyof typeof EventFields];
  const optional = EVENT_OPTIONAL[type];
  return Type.Object(
    {
      type: Type.Literal(type),
      occurred_at: Day,
      ...Object.fromEntries(EVENT_FIELDS[type].map((f) => [f, field(f)])),
      ...Object.fromEntries(optional.map((f) => [f, Type.Optional(field(f))])),
    },
    {
      additionalProperties: false,
      ...(optional.length > 0 && {
        dependentRequired: Object.fromEntries(optional.map((f) => [f, optional.filter((o) => o !== f)])),
      }),
      title: type,
      description: EXAMPLES[type].summary,
      examples: [EXAMPLES[type].value],
    },
  );
}

/**
 * The body as the OpenAPI document shows it: each event type on its own (a oneOf on `type`),
 * with an example of each that the API reference's "try it out" sends as shown. It says what
 * EventEnvelope and parseEvent together take, no more and no less (ledger.openapi.int.test.ts).
 */
export const EventBody = Type.Unsafe<Record<string, unknown>>({
  oneOf: EVENT_TYPES.map(bodyOf),
  discriminator: { propertyName: 'type' },
  'x-examples': EXAMPLES,
});

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
  kind: Type.Optional(Type.String({ description: 'a receive’s: income, gift or unknown' })),
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
    ...CsvQuery,
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
    ...CsvQuery,
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
export const TotalsQuery = Type.Object(CsvQuery, { additionalProperties: false });

export const CSV_COLUMNS = {
  totals: csvColumns(DepositTotal),
  events: csvColumns(Event),
  deposits: csvColumns(Deposit),
  buys: csvColumns(Buy),
} as const;

export const Rebuilt = Type.Object({ rebuilt: Type.Integer() });

export const RebuildQuery = Type.Object(
  {
    table: Type.Optional(
      Type.Union([Type.Literal('deposits'), Type.Literal('buys'), Type.Literal('all')], {
        description: 'the read table to rebuild; all (the default) is deposits, then buys',
      }),
    ),
    times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'rebuild this many times' })),
  },
  { additionalProperties: false },
);
