import { Type, type Static } from 'typebox';
import { CsvQuery } from '../../http/csv.js';
import { AnyCase, DAYS, Day, Nullable } from '../../http/types.js';
import { PRICE_AREAS } from '../../providers/energidataservice.js';

const Area = AnyCase(PRICE_AREAS, 'price area, DK1 or DK2; default PRICE_AREA');
const InstantDk = Type.String({
  description: 'start of the hour, ISO 8601 with the Danish offset of that instant',
  examples: ['2025-10-26T02:00:00+01:00'],
});
const PerKwh = (description: string) => Type.Number({ description: `${description}, DKK/kWh` });

export const ConsumerPricesQuery = Type.Object(
  {
    date: Type.Optional(Day(DAYS.prices, 'a Danish day; default today in Denmark')),
    area: Type.Optional(Area),
    resolution: Type.Optional(
      Type.Union([Type.Literal('hour'), Type.Literal('quarter')], {
        description:
          "hour (default), or quarter: one item per quarter hour (92, 96 or 100 a day), each with its quarter's spot (from 2025-10-01; before, its hour's) and its hour's tariffs",
      }),
    ),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

export const ConsumerPriceItem = Type.Object({
  time_dk: InstantDk,
  spot: PerKwh("day-ahead price: the quarter's, or for an hour the exact mean of its quarters"),
  grid_tariff: Nullable(
    PerKwh(
      "the household's grid tariff of the hour (its meter's, else GRID_COMPANY_GLN's), excl. VAT; null when none applies",
    ),
  ),
  transmission_tariff: Nullable(PerKwh("Energinet's transmission tariff (40000), excl. VAT")),
  system_tariff: Nullable(PerKwh("Energinet's system tariff (41000), excl. VAT")),
  electricity_tax: Nullable(PerKwh('electricity tax (elafgift, EA-001), excl. VAT')),
  other_tariffs: PerKwh('every other tariff the household pays per kWh (as its meter lists them), excl. VAT'),
  supplier_markup: PerKwh("the supplier's markup (SUPPLIER_MARKUP_DKK_KWH), excl. VAT"),
  vat: Nullable(PerKwh('VAT_RATE times the sum of the parts above; null when one is missing')),
  total: Nullable(
    PerKwh(
      'the all-in price of a kWh: the sum of the parts plus VAT; null when a charge is missing, never guessed. Not /api/elprice’s total_dkk (spot + grid tariff only, DKK/MWh)',
    ),
  ),
});
export type ConsumerPriceItem = Static<typeof ConsumerPriceItem>;

export const ConsumerPrices = Type.Object({
  date: Type.String(),
  area: Type.String(),
  resolution: Type.Union([Type.Literal('hour'), Type.Literal('quarter')]),
  complete: Type.Boolean({
    description:
      'every hour (23, 24 or 25) or quarter hour (92, 96 or 100) of the day is stored and has a total',
  }),
  configured: Type.Boolean({
    description:
      'a grid company applies (from the metering token, or GRID_COMPANY_GLN); false: no total has a grid tariff',
  }),
  grid_company: Nullable(
    Type.Object({ gln: Type.String(), name: Nullable(Type.String()), source: Type.String() }),
  ),
  note: Nullable(Type.String({ description: 'what is missing, in words, when not configured' })),
  items: Type.Array(ConsumerPriceItem, {
    description: 'the stored hours or quarter hours of the day, in order',
  }),
});
export type ConsumerPrices = Static<typeof ConsumerPrices>;

export const CostsQuery = Type.Object(
  {
    from: Day(DAYS.metering, 'first Danish day, inclusive'),
    to: Day(DAYS.metering, 'last Danish day, inclusive; at most 366 days after from'),
    resolution: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('hour')], {
        description: 'day (default), or hour: each day also lists its metered hours',
      }),
    ),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

const Kwh = (description: string) => Type.Number({ description: `${description}, kWh` });
const Dkk = (description: string) => Type.Number({ description: `${description}, DKK` });

export const CostHour = Type.Object({
  time_dk: InstantDk,
  resolution_minutes: Type.Integer({
    description: '60 for an hour, 15 for a quarter hour of a quarter-hour meter',
  }),
  consumption_kwh: Nullable(Kwh('taken from the grid (D07)')),
  production_kwh: Nullable(Kwh('supplied to the grid (D06)')),
  solar_kwh: Nullable(Kwh("the solar inverter's energy, where imported")),
  spot: Nullable(PerKwh("day-ahead price of the interval (a quarter's own, from 2025-10-01)")),
  total: Nullable(
    PerKwh('the all-in consumer price incl. VAT (/api/consumer-prices’ total); null when a part is missing'),
  ),
  cost_dkk: Nullable(Dkk('consumption × total, exact, not rounded')),
  sold_value_dkk: Nullable(Dkk('production × spot, exact, not rounded')),
  self_consumed_kwh: Nullable(Kwh('solar energy less what went to the grid, not below 0')),
});

const NOT_METERED = '; null on a day without any reading (not metered yet), never 0';

export const CostDay = Type.Object({
  date: Type.String(),
  complete: Type.Boolean({
    description:
      'every interval of the day has a consumption reading and a price; false while its metering has not arrived (a day or more late) or part of it is missing',
  }),
  consumption_kwh: Nullable(Kwh(`taken from the grid (D07) on the day${NOT_METERED}`)),
  cost_dkk: Nullable(
    Dkk(
      `the sum of each priced hour's consumption × total, rounded to øre${NOT_METERED}; null too while none of its intervals has a price`,
    ),
  ),
  production_kwh: Nullable(Kwh(`supplied to the grid (D06)${NOT_METERED}`)),
  sold_value_dkk: Nullable(Dkk(`the sum of production × spot, rounded to øre${NOT_METERED}`)),
  hours: Type.Integer({
    description: 'metered intervals: hours, or quarter hours of a quarter-hour meter',
  }),
  hours_priced: Type.Integer({
    description:
      'of those, the intervals with a total; the others are counted here and not costed, never at 0',
  }),
  self_consumed_kwh: Nullable(Kwh('solar energy used at home; null without imported solar readings')),
  self_consumption_value_dkk: Nullable(Dkk('self_consumed_kwh × total, rounded to øre')),
  items: Type.Optional(
    Type.Array(CostHour, {
      description: 'with resolution=hour: every metered interval at its own resolution',
    }),
  ),
});
export type CostDay = Static<typeof CostDay>;

export const Costs = Type.Object({
  from: Type.String(),
  to: Type.String(),
  area: Type.String(),
  days: Type.Array(CostDay, { description: 'every day of the range, in order' }),
  total: Type.Object(
    {
      complete: Type.Boolean({ description: 'every day of the range is complete' }),
      missing_days: Type.Array(Type.String(), {
        description:
          'the days of the range that are not complete (no or partial readings, or an interval without a price): the sums below leave them out, or part of them',
      }),
      consumption_kwh: Nullable(Type.Number({ description: 'null when no day of the range is metered' })),
      cost_dkk: Nullable(Type.Number({ description: 'null while no interval of the range has a price' })),
      production_kwh: Nullable(Type.Number({ description: 'null when no day of the range is metered' })),
      sold_value_dkk: Nullable(Type.Number({ description: 'null when no day of the range is metered' })),
      hours: Type.Integer(),
      hours_priced: Type.Integer(),
      self_consumed_kwh: Type.Union([Type.Number(), Type.Null()]),
      self_consumption_value_dkk: Type.Union([Type.Number(), Type.Null()]),
    },
    { description: "the days' figures summed over the range (amounts in DKK, energy in kWh): no price" },
  ),
});
export type Costs = Static<typeof Costs>;

export const Cheapest = Type.Object({
  area: Type.String(),
  hours: Type.Integer(),
  start_dk: InstantDk,
  end_dk: Type.String({ description: 'end of the last hour (exclusive), with the Danish offset' }),
  average_dkk_kwh: Type.Number({ description: 'mean price of the window, DKK/kWh' }),
  basis: Type.Union([Type.Literal('total'), Type.Literal('spot')], {
    description:
      'total: consumer price incl. VAT; spot: a charge is missing for some hour searched, so the window is ranked on the spot price',
  }),
});
export type Cheapest = Static<typeof Cheapest>;
