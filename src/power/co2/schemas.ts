import { Type, type Static } from 'typebox';
import { AnyCase, DAYS, Day } from '../../http/types.js';
import { PRICE_AREAS } from '../../providers/energidataservice.js';

export const Co2Query = Type.Object(
  {
    date: Type.Optional(Day(DAYS.co2, 'a Danish day; default today in Denmark')),
    area: Type.Optional(AnyCase(PRICE_AREAS, 'price area, DK1 or DK2; default PRICE_AREA')),
    resolution: Type.Optional(
      Type.Union([Type.Literal('quarter'), Type.Literal('hour')], {
        description: 'quarter (default): 92, 96 or 100 a day; hour: 23, 24 or 25',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Co2Item = Type.Object({
  time_dk: Type.String({
    description: 'start of the interval, ISO 8601 with the Danish offset of that instant',
    examples: ['2025-10-26T02:00:00+01:00'],
  }),
  g_kwh: Type.Number({
    description:
      "g CO₂ per kWh: the mean of the interval's 5-minute values, rounded to 2 decimals (half away from zero)",
  }),
  kind: Type.Union([Type.Literal('realized'), Type.Literal('forecast')], {
    description:
      'realized: every 5-minute value of the interval is realized; forecast: some are the latest issued prognosis',
  }),
});

export const Co2Day = Type.Object({
  date: Type.String(),
  area: Type.String(),
  resolution: Type.Union([Type.Literal('quarter'), Type.Literal('hour')]),
  complete: Type.Boolean({ description: 'every interval of the day has all its 5-minute values' }),
  items: Type.Array(Co2Item, {
    description: 'the intervals that have all their 5-minute values (realized or forecast), in order',
  }),
});
export type Co2Day = Static<typeof Co2Day>;
