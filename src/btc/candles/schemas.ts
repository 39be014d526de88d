import { Type } from 'typebox';

export const PairQuery = Type.Union([Type.Literal('BTC/USD'), Type.Literal('BTC/EUR')], {
  default: 'BTC/USD',
  description: 'the market; BTC/USD by default',
});

export const HourQuery = Type.Object({ pair: PairQuery }, { additionalProperties: false });

export const MinuteQuery = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: 1440,
      default: 60,
      description: 'how many of the latest candles',
    }),
    pair: PairQuery,
  },
  { additionalProperties: false },
);

export const Candle = Type.Object({
  time: Type.String({ format: 'date-time', description: 'start of the candle, UTC' }),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume: Type.Number({ description: 'in BTC' }),
});

export const CandleList = Type.Array(Candle, { description: 'oldest first' });
