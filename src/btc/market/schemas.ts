import { Type, type Static } from 'typebox';
import { csvColumns, CsvQuery } from '../../http/csv.js';
import { DAYS, Day, Nullable } from '../../http/types.js';

const PerBtc = (currency: string, more = '') =>
  Type.Number({
    description: `${currency} per BTC, to the cent (rounded half up from the exact figure)${more}`,
  });

export const PriceRates = Type.Object(
  {
    date: Type.String({ format: 'date' }),
    usd_eur: Type.Number({ description: 'EUR per USD' }),
    usd_dkk: Type.Number({ description: 'DKK per USD' }),
    eur_dkk: Type.Number({ description: 'DKK per EUR' }),
  },
  { description: 'the currency rates btc_dkk was computed with; null until a EUR/DKK rate is known' },
);

export const PriceMessage = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    btc_usd: PerBtc('USD'),
    btc_eur: PerBtc('EUR'),
    btc_dkk: Nullable(PerBtc('DKK', ': BTC/EUR × eur_dkk; null until a EUR/DKK rate is known')),
    rates: Nullable(PriceRates),
  },
  {
    description:
      'The latest spot price; also the shape of each message of /api/stream/price and /api/stream/price/sse',
  },
);
export type PriceMessage = Static<typeof PriceMessage>;

export const QuoteRate = Type.Object({
  amount: Type.String({
    description: '1 source_currency = amount target_currency, the decimal text the broker sent',
  }),
  source_currency: Type.String(),
  target_currency: Type.String(),
});

export const QuoteMessage = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    total_eur: Type.Number({ description: 'QUOTE_TOTAL_EUR: the EUR total quoted, fee included' }),
    fee_eur: Type.Number({ description: "the day's fee for that total, as the broker stated it" }),
    pre_fee_eur: Type.Number({ description: 'total_eur − fee_eur, rounded down to the cent' }),
    quote_sats: Type.Integer({ description: 'sats that total_eur buys, spread included' }),
    rates: Type.Array(QuoteRate, { description: "the broker's rates ticker of the poll, every pair" }),
    spot_eur: Nullable(
      PerBtc('EUR', ': the exchange spot price at or up to 60 s before the quote; null without one'),
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
  { description: 'One quote poll; also the shape of each message of /api/stream/quote' },
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
