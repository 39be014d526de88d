import { Type } from 'typebox';
import { csvColumns, CsvQuery } from '../../http/csv.js';
import { DAYS, Day, Decimal, Nullable } from '../../http/types.js';
import { Owner } from '../ledger/schemas.js';

const Dkk = (description: string) =>
  Type.String({ pattern: '^[0-9]+\\.[0-9]{2}$', description: `${description}; DKK to the øre` });
const SignedDkk = (description: string) =>
  Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$', description: `${description}; DKK to the øre` });
const Sats = (description: string) => Type.Integer({ minimum: 0, description });
const EventId = Type.Integer({ minimum: 1, description: 'the ledger event' });
const Date_ = Type.String({ format: 'date', description: 'the event’s date' });

const LotDraw = Type.Object({
  event_id: Type.Integer({ minimum: 1, description: 'the acquisition the lot comes from' }),
  occurred_at: Type.String({ format: 'date', description: 'the acquisition’s date' }),
  sats: Sats('sats drawn from the lot'),
  cost_dkk: Nullable(Dkk('their cost; null while the acquisition’s cost is unknown')),
});

export const OpenLot = Type.Object({
  owner: Type.String(),
  event_id: Type.Integer({ minimum: 1, description: 'the acquisition the lot comes from' }),
  occurred_at: Type.String({ format: 'date', description: 'the acquisition’s date' }),
  sats: Sats('sats left in the lot'),
  cost_dkk: Nullable(Dkk('cost left in the lot; null while the acquisition’s cost is unknown')),
});

export const LotsQuery = Type.Object(
  {
    owner: Type.Optional(Owner),
    at: Type.Optional(
      Day(
        DAYS.ledger,
        'the lots after the events of that day (at most today, Danish date); today unless given',
      ),
    ),
  },
  { additionalProperties: false },
);

export const Lots = Type.Object({
  owner: Nullable(Type.String(), { description: 'the owner asked; null for every owner' }),
  at: Type.String({ format: 'date' }),
  sats: Sats('sats of the open lots'),
  cost_dkk: Nullable(Dkk('their FIFO cost; null while a lot’s cost is unknown')),
  lots: Type.Array(OpenLot, { description: 'in FIFO order per owner: the next to be drawn first' }),
});

const Disposal = Type.Object({
  event_id: EventId,
  occurred_at: Date_,
  type: Type.Union([Type.Literal('sale'), Type.Literal('spend'), Type.Literal('gift'), Type.Literal('fee')], {
    description:
      'sale, spend (a payment), gift (to an owner who is not a spouse, or to someone else), fee (a network fee)',
  }),
  sats: Sats('every sat that left the pool, fee included'),
  fee_sats: Sats('of them, the network fee'),
  proceeds_dkk: Dkk('what was received, or the value of the sats given'),
  cost_dkk: Nullable(Dkk('the FIFO cost of the lots drawn; null when one’s cost is unknown')),
  gain_dkk: Nullable(SignedDkk('proceeds − cost; a loss negative; null with the cost')),
  lots: Type.Array(LotDraw),
});

const Income = Type.Object({
  event_id: EventId,
  occurred_at: Date_,
  sats: Sats('sats received'),
  value_dkk: Dkk('their value on the day'),
});

export const YearParams = Type.Object({
  year: Type.Integer({ minimum: 2009, maximum: 9999, description: 'the income year' }),
});

export const YearQuery = Type.Object(
  {
    owner: Type.Optional({
      ...Owner,
      description: 'whose return; required when the wallets have several owners',
    }),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

export const TaxYear = Type.Object({
  year: Type.Integer(),
  owner: Type.String(),
  method: Type.Literal('fifo'),
  currency: Type.Literal('DKK'),
  disposals: Type.Array(Disposal),
  income: Type.Array(Income),
  gains_dkk: Dkk('the sum of the gains'),
  losses_dkk: Dkk('the sum of the losses, positive'),
  income_dkk: Dkk('the sum of the income'),
  rubrik_20_dkk: Dkk('gains + income: "Anden personlig indkomst"'),
  rubrik_58_dkk: Dkk('the losses: "Øvrige lønmodtagerudgifter"'),
  unknown_cost: Type.Array(Type.Integer(), {
    description: 'acquisitions of unknown cost that a disposal of the year drew on: give them a cost',
  }),
  complete: Type.Boolean({ description: 'false while a disposal of the year drew on an unknown cost' }),
});

/** One line per disposal and income of the year, for a spreadsheet. */
export const TaxCsvRow = Type.Object({
  event_id: Type.Integer(),
  occurred_at: Type.String(),
  type: Type.String({ description: 'sale, spend, gift, fee or income' }),
  sats: Type.Integer(),
  fee_sats: Type.Integer(),
  proceeds_dkk: Nullable(Decimal('a disposal’s proceeds in DKK')),
  cost_dkk: Nullable(Decimal('a disposal’s cost in DKK')),
  gain_dkk: Nullable(Decimal('a disposal’s gain or loss in DKK')),
  income_dkk: Nullable(Decimal('an income’s value in DKK')),
  lots: Type.String({ description: 'the lots drawn: event:sats, space-separated' }),
});
export const TAX_CSV_COLUMNS = csvColumns(TaxCsvRow);
