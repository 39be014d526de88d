import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { PriceMessage, QuoteMessage } from './schemas.js';
import type { MarketService } from './service.js';

export function marketRoutes(app: App, market: MarketService): void {
  app.get(
    '/api/price/latest',
    {
      schema: {
        tags: ['market'],
        summary: 'The latest BTC spot price in USD, EUR and DKK, with the rates used',
        response: { 200: PriceMessage, ...problems(503) },
      },
    },
    async () => market.latestPrice(),
  );

  app.get(
    '/api/quote/latest',
    {
      schema: {
        tags: ['market'],
        summary: 'The latest quote poll: the sats the configured total buys at the broker',
        response: { 200: QuoteMessage, ...problems(503) },
      },
    },
    async () => market.latestQuote(),
  );

  app.post(
    '/api/quote',
    {
      schema: {
        tags: ['market'],
        summary: 'Obtains a fresh real quote from the broker now, stores and answers it',
        security: [{ bearer: [] }],
        response: { 200: QuoteMessage, ...problems(401, 502, 503) },
      },
    },
    async (request) => market.quoteNow(request.signal),
  );

  app.get(
    '/api/stream/price',
    {
      websocket: true,
      schema: {
        tags: ['market'],
        summary: 'WebSocket: the latest price on connect, then every update (raw JSON)',
      },
    },
    (socket) => market.subscribePrice(socket),
  );

  app.get(
    '/api/stream/quote',
    {
      websocket: true,
      schema: {
        tags: ['market'],
        summary: 'WebSocket: the latest quote on connect, then every update (raw JSON)',
      },
    },
    (socket) => market.subscribeQuote(socket),
  );

  app.get(
    '/api/stream/price/sse',
    {
      schema: {
        tags: ['market'],
        summary: 'Server-Sent Events: the latest price on connect, then every update',
        produces: ['text/event-stream'],
      },
    },
    (_request, reply) => {
      reply.hijack();
      market.subscribePriceEvents(reply.raw);
    },
  );
}
