import { Type, type Static } from 'typebox';
import { csvColumns, CsvQuery } from '../../http/csv.js';
import { DAYS, Day, Nullable } from '../../http/types.js';

export const PriceRates = Type.Object({
  date: Type.String({ format: 'date' }),
  usd_eur: Type.Number(),
  usd_dkk: Type.Number(),
  eur_dkk: Type.Number(),
});

export const PriceMessage = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    btc_usd: Type.Number(),
    btc_eur: Type.Number(),
    btc_dkk: Nullable(Type.Number({ description: 'null until a EUR/DKK rate is known' })),
    rates: Nullable(PriceRates),
  },
  { description: 'The latest spot price; also the shape of each /api/stream/price message' },
);
export type PriceMessage = Static<typeof PriceMessage>;

export const StrikeRate = Type.Object({
  amount: Type.String({ description: '1 sourceCurrency = amount targetCurrency, as the broker sent it' }),
  sourceCurrency: Type.String(),
  targetCurrency: Type.String(),
});

export const QuoteMessage = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    total_eur: Type.Number(),
    fee_eur: Type.Number(),
    pre_fee_eur: Type.Number(),
    quote_sats: Type.Integer({ description: 'sats that total_eur buys, spread included' }),
    rates: Type.Array(StrikeRate, { description: "the broker's rates ticker, stored whole" }),
    spot_eur: Nullable(
      Type.Number({ description: 'the exchange spot price (EUR/BTC) at or up to 60 s before the quote' }),
    ),
    spread_pct: Nullable(
      Type.Number({
        description:
          "the broker's price per BTC before the fee over spot, in percent; null without a spot price within 60 s",
      }),
    ),
    all_in_pct: Nullable(
      Type.Number({
        description: 'total_eur / (quote_sats / 1e8) over spot, fee included, in percent; null likewise',
      }),
    ),
  },
  { description: 'One quote poll; also the shape of each /api/stream/quote message' },
);
export type QuoteMessage = Static<typeof QuoteMessage>;

export const PremiumQuery = Type.Object(
  {
    from: Day(DAYS.ledger, 'the first Danish day'),
    to: Day(DAYS.ledger, 'the last Danish day, included'),
    resolution: Type.Union([Type.Literal('hour'), Type.Literal('day')], {
      default: 'hour',
      description: 'hour (default) or Danish day',
    }),
    ...CsvQuery,
  },
  { additionalProperties: false },
);

export const PremiumItem = Type.Object({
  time: Type.String({ format: 'date-time', description: 'start of the hour or Danish day, UTC' }),
  quotes: Type.Integer({
    description: 'quotes in the bucket that have a premium (a spot price within 60 s)',
  }),
  spread_pct_avg: Type.Number(),
  spread_pct_min: Type.Number(),
  spread_pct_max: Type.Number(),
  all_in_pct_avg: Type.Number(),
});

export const PremiumList = Type.Object({
  items: Type.Array(PremiumItem, { description: 'oldest first; buckets without a premium are left out' }),
});
export type PremiumList = Static<typeof PremiumList>;
export const PREMIUM_COLUMNS = csvColumns(PremiumItem);
