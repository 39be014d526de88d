import { Type, type Static } from 'typebox';
import { CsvQuery } from '../../http/csv.js';
import { Nullable } from '../../http/types.js';

export const BillQuery = Type.Object(
  {
    month: Type.String({
      pattern: '^(19|20)[0-9]{2}-(0[1-9]|1[0-2])$',
      description: 'a Danish calendar month, YYYY-MM, from 2013-01 to the current one',
      examples: ['2025-10'],
    }),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

export const BillLine = Type.Object({
  name: Type.String({
    description:
      "the charge's name as the meter lists it, or Spot price, Supplier markup, Supplier subscription",
  }),
  kind: Type.Union([
    Type.Literal('spot'),
    Type.Literal('tariff'),
    Type.Literal('markup'),
    Type.Literal('subscription'),
  ]),
  owner: Nullable(Type.String({ description: 'who charges it (name, else GLN)' })),
  kwh: Nullable(
    Type.Number({ description: 'the priced consumption the line is over; null for a subscription' }),
  ),
  amount_dkk: Type.Number({ description: 'excl. VAT, rounded to øre (half away from zero)' }),
});
export type BillLine = Static<typeof BillLine>;

export const Bill = Type.Object({
  month: Type.String(),
  area: Type.String(),
  complete: Type.Boolean({ description: 'every interval of the month has a reading and a price' }),
  missing_days: Type.Array(Type.String(), {
    description:
      'the Danish days of the month with an interval without a consumption reading (metering arrives a day or more late; the days still to come of the current month): the lines leave them out',
  }),
  consumption_kwh: Type.Number({ description: 'metered consumption, priced or not' }),
  intervals: Type.Integer({
    description: 'metered intervals (hours, or quarter hours of a quarter-hour meter)',
  }),
  intervals_priced: Type.Integer({
    description: 'of those, the ones with a price; the others are left out, never priced at 0',
  }),
  lines: Type.Array(BillLine),
  subtotal_dkk: Type.Number({ description: 'the sum of the rounded lines' }),
  vat_dkk: Type.Number({ description: 'VAT_RATE × subtotal, rounded to øre' }),
  total_dkk: Type.Number({
    description:
      'the month’s bill in DKK, VAT included: subtotal_dkk + vat_dkk. An amount, not a price per kWh or per MWh',
  }),
});
export type Bill = Static<typeof Bill>;
