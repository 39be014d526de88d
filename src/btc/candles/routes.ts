import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import type { CandleRow } from './repository.js';
import { CandleList, HourQuery, MinuteQuery } from './schemas.js';
import type { CandleService } from './service.js';

/** The hourly endpoint shows one day. */
const HOURS = 24;

export function candleRoutes(app: App, candles: CandleService): void {
  app.get(
    '/api/exch-hour',
    {
      schema: {
        tags: ['market'],
        summary: 'The latest closed hourly candles, at most 24, oldest first',
        querystring: HourQuery,
        response: { 200: CandleList, ...problems(400) },
      },
    },
    async (request) => (await candles.latest('hour', request.query.pair, HOURS)).map(toJson),
  );
  app.get(
    '/api/exch-minute',
    {
      schema: {
        tags: ['market'],
        summary: 'The latest 1-minute candles (the last one may still be forming), oldest first',
        querystring: MinuteQuery,
        response: { 200: CandleList, ...problems(400) },
      },
    },
    async (request) => (await candles.latest('minute', request.query.pair, request.query.limit)).map(toJson),
  );
}

function toJson(c: CandleRow) {
  return {
    time: c.time.toISOString(),
    open: Number(c.open),
    high: Number(c.high),
    low: Number(c.low),
    close: Number(c.close),
    volume: Number(c.volume),
  };
}
