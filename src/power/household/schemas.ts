import { Type, type Static } from 'typebox';
import { DAYS, Day, Nullable } from '../../http/types.js';

export const ChargesQuery = Type.Object(
  { date: Type.Optional(Day(DAYS.metering, 'a Danish day; default today in Denmark')) },
  { additionalProperties: false },
);

export const ChargeItem = Type.Object({
  name: Type.String({ description: "the charge's name, as the meter lists it (DatahubPricelist's Note)" }),
  kind: Type.Union([Type.Literal('tariff'), Type.Literal('subscription'), Type.Literal('fee')]),
  role: Type.String({
    description: 'grid, transmission, system, electricity_tax, other (tariffs), subscription or fee',
  }),
  applies_to: Type.Union([Type.Literal('consumption'), Type.Literal('production')]),
  owner_gln: Type.String(),
  owner: Nullable(Type.String()),
  code: Nullable(
    Type.String({ description: "DatahubPricelist code(s) in force; null: the meter's own prices" }),
  ),
  source: Type.Union([Type.Literal('meter'), Type.Literal('config')], {
    description:
      "meter: listed by the household's metering point; config: GRID_COMPANY_GLN and ENERGINET_GLN",
  }),
  valid_from: Type.String({ description: 'Danish wall-clock time, inclusive' }),
  valid_to: Nullable(Type.String({ description: 'Danish wall-clock time, exclusive; null: open-ended' })),
  resolution: Type.String({ description: 'PT1H or P1D (tariffs), P1M or P1D (subscriptions, fees)' }),
  prices: Type.Array(Type.Number(), {
    description:
      'DKK excl. VAT: 24 hourly DKK/kWh for a tariff (the first is 00:00-01:00), one amount per resolution otherwise',
  }),
});

export const Charges = Type.Object({
  date: Type.String({ format: 'date' }),
  configured: Type.Boolean({ description: 'a grid company applies (from the meter or GRID_COMPANY_GLN)' }),
  charges: Type.Array(ChargeItem),
});
export type Charges = Static<typeof Charges>;
