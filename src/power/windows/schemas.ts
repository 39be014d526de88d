import { Type, type Static } from 'typebox';
import { AnyCase, DAYS, Day } from '../../http/types.js';
import { PRICE_AREAS } from '../../providers/energidataservice.js';

const Area = AnyCase(PRICE_AREAS, 'price area, DK1 or DK2; default PRICE_AREA');
const Minutes = Type.Integer({
  minimum: 15,
  maximum: 720,
  multipleOf: 15,
  description: "the window's length: 15 to 720 minutes in steps of 15",
});
const Instant = (description: string) =>
  Type.String({
    maxLength: 40,
    description: `${description}; ISO 8601 date-time: with Z or an offset that instant, without one Danish wall time (a repeated autumn time is the earlier, +02:00; a skipped spring time is refused)`,
    examples: ['2026-01-15T17:00', '2026-01-15T17:00:00+01:00', '2026-01-15T16:00:00Z'],
  });
const After = Instant(
  'the window starts at or after this instant, rounded up to a quarter hour; default now',
);
const InstantDk = (description: string) =>
  Type.String({
    description: `${description}, ISO 8601 with the Danish offset`,
    examples: ['2026-01-16T01:15:00+01:00'],
  });

export const CheapestQuery = Type.Object(
  {
    minutes: Type.Optional(Minutes),
    after: Type.Optional(After),
    before: Type.Optional(
      Instant(
        'the window ends by this instant, rounded down to a quarter hour; default the end of the last published quarter hour',
      ),
    ),
    hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description:
          'instead of minutes: N (1 to 12) consecutive whole hours, of date or from the current hour',
      }),
    ),
    date: Type.Optional(
      Day(DAYS.prices, 'with hours: a Danish day; default from the current hour to the last published hour'),
    ),
    area: Type.Optional(Area),
  },
  { additionalProperties: false },
);

export const GreenestQuery = Type.Object(
  {
    minutes: Minutes,
    after: Type.Optional(After),
    before: Type.Optional(
      Instant(
        'the window ends by this instant, rounded down to a quarter hour; default the end of the last quarter hour with CO₂ values',
      ),
    ),
    area: Type.Optional(Area),
  },
  { additionalProperties: false },
);

export const CheapestWindow = Type.Object({
  area: Type.String(),
  minutes: Type.Integer(),
  start_dk: InstantDk('start of the first quarter hour'),
  end_dk: InstantDk('end of the last quarter hour (exclusive)'),
  average_dkk_kwh: Type.Number({ description: 'the mean price of its quarter hours, DKK/kWh' }),
  basis: Type.Union([Type.Literal('total'), Type.Literal('spot')], {
    description:
      "total: the all-in price incl. VAT (the household's charges are known for every quarter hour searched); spot: a charge is missing for some quarter hour searched, so every window is ranked on the spot price",
  }),
});
export type CheapestWindow = Static<typeof CheapestWindow>;

export const GreenestWindow = Type.Object({
  area: Type.String(),
  minutes: Type.Integer(),
  start_dk: InstantDk('start of the first quarter hour'),
  end_dk: InstantDk('end of the last quarter hour (exclusive)'),
  average_g_kwh: Type.Number({
    description: 'the mean of its 5-minute CO₂ values, g/kWh, rounded to 2 decimals (half away from zero)',
  }),
  kind: Type.Union([Type.Literal('realized'), Type.Literal('forecast')], {
    description:
      'realized: every value in the window is realized; forecast: some are the latest issued prognosis',
  }),
});
export type GreenestWindow = Static<typeof GreenestWindow>;
