import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { App } from '../../context.js';
import { HttpProblem, problems } from '../../http/problem.js';
import { jsonOrCsv, sendCsv } from '../../http/csv.js';
import { PREMIUM_COLUMNS, PremiumList, PremiumQuery, PriceMessage, QuoteMessage } from './schemas.js';
import type { MarketService } from './service.js';
import type { MarketStreams } from './streams.js';

const STREAM_LIMITS =
  'At most STREAM_MAX_CLIENTS streams in all (then 503) and STREAM_MAX_PER_ADDRESS per client address (then 429), refused before the upgrade with Retry-After. WebSocket clients are pinged every 30 s and dropped when a pong is missed; SSE gets a comment line every 15 s.';

/** The OpenAPI of a WebSocket stream: the upgrade, and the message each text frame carries. */
function webSocketAnswer(message: TSchema, what: string) {
  return {
    101: {
      description: `Switching Protocols: a WebSocket on which the server sends ${what} as one JSON text frame each (the schema below); it reads nothing from the client`,
      content: { 'application/json': { schema: message } },
    },
    ...problems(400, 426, 429, 503),
  } as unknown as Record<number, TSchema>;
}

/** A request to a WebSocket stream that asks for no upgrade gets a problem, not the plugin's bare 404. */
async function upgradeOnly(request: FastifyRequest): Promise<void> {
  if (!request.ws)
    throw new HttpProblem(
      426,
      `${request.url.split('?')[0]} is a WebSocket stream: connect with Upgrade: websocket`,
      {
        upgrade: 'websocket',
      },
    );
}

export function marketRoutes(app: App, market: MarketService, streams: MarketStreams): void {
  /** Takes a stream slot before the upgrade (or the event stream), after validation, or answers the refusal. */
  const admit = async (request: FastifyRequest) => streams.admit(request.ip, request.raw.socket);

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

  app.get(
    '/api/quote/premium',
    {
      schema: {
        tags: ['market'],
        summary: "The broker's premium over the exchange spot price, by hour or Danish day",
        description:
          "Averages, minimum and maximum of each quote's spread_pct and the average all_in_pct over the Danish days from..to (at most 400); quotes older than QUOTE_RETENTION_DAYS count through their hourly rows. format=csv answers the items as text/csv.",
        querystring: PremiumQuery,
        response: {
          200: jsonOrCsv(PremiumList, 'the items as JSON, or as text/csv (RFC 4180) with format=csv'),
          ...problems(400),
        },
      },
    },
    async (request, reply) => {
      const { from, to, resolution, format } = request.query;
      const answer = await market.premium(from, to, resolution);
      if (format === 'csv')
        return sendCsv(reply, `premium-${from}-${to}-${resolution}.csv`, PREMIUM_COLUMNS, answer.items);
      return answer;
    },
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
    async (request) => market.quoteNow(request.deadline.signal),
  );

  app.get(
    '/api/stream/price',
    {
      websocket: true,
      preHandler: [upgradeOnly, admit],
      schema: {
        tags: ['market'],
        summary: 'WebSocket: the latest price on connect, then every update (raw JSON)',
        description: `Each message has the shape of GET /api/price/latest. ${STREAM_LIMITS}`,
        response: webSocketAnswer(PriceMessage, 'the latest price on connect, then every update'),
      },
    },
    (socket) => streams.price.addSocket(socket),
  );

  app.get(
    '/api/stream/quote',
    {
      websocket: true,
      preHandler: [upgradeOnly, admit],
      schema: {
        tags: ['market'],
        summary: 'WebSocket: the latest quote on connect, then every update (raw JSON)',
        description: `Each message has the shape of GET /api/quote/latest. ${STREAM_LIMITS}`,
        response: webSocketAnswer(QuoteMessage, 'the latest quote on connect, then every new quote'),
      },
    },
    (socket) => streams.quote.addSocket(socket),
  );

  app.get(
    '/api/stream/price/sse',
    {
      preHandler: admit,
      schema: {
        tags: ['market'],
        summary: 'Server-Sent Events: the latest price on connect, then every update',
        description: `Each event's data has the shape of GET /api/price/latest. ${STREAM_LIMITS}`,
        produces: ['text/event-stream'],
        response: {
          200: {
            description:
              'text/event-stream: one event per price, `data: ` and the message as one line of JSON (the schema below), then a blank line; a comment line (`:`) every 15 s',
            content: { 'text/event-stream': { schema: PriceMessage } },
          },
          ...problems(400, 429, 503),
        } as unknown as Record<number, TSchema>,
      },
    },
    (_request, reply) => {
      reply.hijack();
      streams.price.addSse(reply.raw);
    },
  );
}
