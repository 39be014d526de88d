import { Type, type Static } from 'typebox';
import { CsvQuery } from '../../http/csv.js';
import { AnyCase, DAYS, Day, Nullable } from '../../http/types.js';
import { PRICE_AREAS } from '../../providers/energidataservice.js';

const Area = AnyCase(PRICE_AREAS, 'price area, DK1 or DK2; both when absent');
const InstantDk = Type.String({
  description: 'start of the period, ISO 8601 with the Danish offset of that instant',
  examples: ['2025-10-26T02:00:00+01:00'],
});

export const ElpriceQuery = Type.Object(
  {
    date: Type.Optional(Day(DAYS.prices, 'a Danish day; default today in Denmark')),
    area: Type.Optional(Area),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

export const PricesQuery = Type.Object(
  {
    date: Type.Optional(Day(DAYS.prices, 'a Danish day; default today in Denmark')),
    area: Type.Optional(Area),
  },
  { additionalProperties: false },
);

export const BackfillQuery = Type.Object(
  {
    from: Day(DAYS.prices, 'the first Danish day'),
    to: Day(DAYS.prices, 'the last Danish day (included); days not yet published are left out'),
  },
  { additionalProperties: false },
);

export const ElpriceItem = Type.Object({
  time_dk: InstantDk,
  price_area: Type.String(),
  price_dkk: Type.Number({ description: 'day-ahead price, DKK/MWh; the exact mean of the hour’s quarters' }),
  tariff_dkk: Nullable(
    Type.Number({
      description: 'grid tariff, DKK/MWh (øre/kWh × 10); null when no tariff period covers the hour',
    }),
  ),
  total_dkk: Nullable(
    Type.Number({
      description:
        'price_dkk + tariff_dkk: the spot price and the grid tariff only, DKK/MWh, without the other tariffs, the electricity tax, the markup and VAT. Not what a kWh costs the household: that is /api/consumer-prices’ total (DKK/kWh, all in, VAT included). null with tariff_dkk',
    }),
  ),
});

export const ElpriceDay = Type.Object({
  date: Type.String(),
  complete: Type.Boolean({
    description:
      'every hour of the day is stored for the area(s) asked for; false: prices not (all) published yet',
  }),
  hours: Type.Integer({ description: 'hours of this Danish day: 23, 24 or 25' }),
  items: Type.Array(ElpriceItem, { description: 'ordered by time_dk, price_area' }),
});
export type ElpriceDay = Static<typeof ElpriceDay>;

export const PriceItem = Type.Object({
  time_dk: InstantDk,
  price_area: Type.String(),
  resolution_minutes: Type.Integer({ description: '15 from 2025-10-01, 60 before' }),
  price_dkk: Type.Number({ description: 'DKK/MWh' }),
  price_eur: Nullable(Type.Number({ description: 'EUR/MWh' })),
});

export const PricesDay = Type.Object({
  date: Type.String(),
  area: Type.Union([Type.String(), Type.Null()]),
  complete: Type.Boolean({ description: 'the rows cover the whole day for the area(s) asked for' }),
  items: Type.Array(PriceItem, { description: 'ordered by time_dk, price_area' }),
});
export type PricesDay = Static<typeof PricesDay>;
