import { Type, type Static } from 'typebox';
import { Problem } from '../../http/problem.js';
import { Decimal } from '../../http/types.js';

/** The largest body POST /api/imports takes: 16 MiB, above BODY_LIMIT_BYTES for every other route. */
export const IMPORT_MAX_BYTES = 16 * 1024 * 1024;

const WalletId = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });

export const ImportQuery = Type.Object(
  {
    source: Type.Union([Type.Literal('kraken'), Type.Literal('csv')], {
      description: "kraken: Kraken's ledger export; csv: one ledger event per line (see docs/ledger.md)",
    }),
    exchange: Type.Optional({
      ...WalletId,
      description:
        'the exchange wallet: where deposits arrive and lots are bought (kraken: required; csv: for lines that name no wallet)',
    }),
    to_wallet: Type.Optional({
      ...WalletId,
      description: 'the wallet withdrawals go to (kraken: required; csv: for lines that name no to_wallet)',
    }),
    dry_run: Type.Optional(
      Type.Boolean({ default: false, description: 'answer what the import would create, and write nothing' }),
    ),
  },
  { additionalProperties: false },
);

/** The job route's query: the import's, and the file's name as the command line gave it. */
export const ImportJobQuery = Type.Object(
  {
    ...ImportQuery.properties,
    name: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: 'the file name as the user gave it, for the lines the import prints',
    }),
  },
  { additionalProperties: false },
);

const Line = Type.Integer({ minimum: 0, description: 'the line of the file (1 is the header)' });
export const LineNote = Type.Object({ line: Line, reason: Type.String() });

export const ImportedEvent = Type.Object({
  id: Type.Optional(Type.Integer({ description: 'absent in a dry run' })),
  type: Type.String(),
  occurred_at: Type.String(),
  wallet: Type.Optional(Type.Integer()),
  from_wallet: Type.Optional(Type.Integer()),
  to_wallet: Type.Optional(Type.Integer()),
  sats: Type.Optional(Type.Integer()),
  fee_sats: Type.Optional(Type.Integer()),
  amount: Type.Optional(Decimal('fiat amount, exact')),
  currency: Type.Optional(Type.String()),
  reference: Type.String({ description: "Kraken's refid, or the reference column" }),
  line: Line,
});

export const ImportedLot = Type.Object({
  reference: Type.String(),
  line: Line,
  acquired_at: Type.String({ description: 'the instant of the trade, UTC' }),
  occurred_at: Type.String({ description: 'its Danish date, whose rates convert the amount to EUR' }),
  sats: Type.Integer(),
  amount: Decimal('the money paid, the fee included'),
  currency: Type.Union([Type.Literal('EUR'), Type.Literal('DKK'), Type.Literal('USD')]),
});

export const ImportAnswer = Type.Object({
  source: Type.Union([Type.Literal('kraken'), Type.Literal('csv')]),
  dry_run: Type.Boolean(),
  created: Type.Integer({ description: 'events and purchase lots recorded (in a dry run: that would be)' }),
  duplicates: Type.Integer({ description: 'lines whose reference is already stored' }),
  skipped: Type.Array(LineNote, { description: 'lines left out, and why' }),
  events: Type.Array(ImportedEvent),
  lots: Type.Array(ImportedLot, {
    description: 'bitcoin bought on the exchange, which withdrawals take their cost from',
  }),
});

/** A refused import: problem+json with every problem found, each on its line. */
export const ImportProblem = Type.Object(
  { ...Problem.properties, problems: Type.Array(LineNote) },
  { description: 'application/problem+json (RFC 9457) listing each problem with its line' },
);

export type ImportAnswer = Static<typeof ImportAnswer>;
export type ImportedEvent = Static<typeof ImportedEvent>;
export type ImportedLot = Static<typeof ImportedLot>;
