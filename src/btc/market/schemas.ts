import { Type, type Static, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

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
  },
  { description: 'One quote poll; also the shape of each /api/stream/quote message' },
);
export type QuoteMessage = Static<typeof QuoteMessage>;
