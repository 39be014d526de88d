import type { FastifyReply } from 'fastify';
import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { EvccQuery, EvccRates, type EvccRate } from './schemas.js';
import type { EvccService } from './service.js';

/** Each answer changes with the current quarter hour. */
const fresh = (reply: FastifyReply, rates: EvccRate[]) => {
  void reply.header('cache-control', 'no-store');
  return rates;
};

export function evccRoutes(app: App, service: EvccService) {
  const route = (path: string, summary: string, unit: string, statuses: number[]) => ({
    path,
    schema: {
      tags: ['power'],
      summary,
      querystring: EvccQuery,
      response: { 200: EvccRates(unit), ...problems(...statuses) },
    },
  });
  const grid = route(
    '/api/evcc/grid',
    "evcc's custom grid tariff: the all-in price of a kWh incl. VAT per quarter hour",
    'DKK/kWh incl. VAT',
    [400, 409, 502, 503],
  );
  app.get(grid.path, { schema: grid.schema }, async (request, reply) =>
    fresh(reply, await service.grid(request.query.area, request.deadline.signal)),
  );
  const feedIn = route(
    '/api/evcc/feedin',
    "evcc's custom feed-in tariff: what a kWh supplied to the grid earns per quarter hour",
    'DKK/kWh: the spot price less the production tariffs the meter lists',
    [400, 502, 503],
  );
  app.get(feedIn.path, { schema: feedIn.schema }, async (request, reply) =>
    fresh(reply, await service.feedIn(request.query.area, request.deadline.signal)),
  );
  const co2 = route(
    '/api/evcc/co2',
    "evcc's custom CO₂ forecast: the grid's CO₂ intensity per quarter hour",
    'g CO₂/kWh',
    [400, 502, 503],
  );
  app.get(co2.path, { schema: co2.schema }, async (request, reply) =>
    fresh(reply, await service.co2(request.query.area, request.deadline.signal)),
  );
}
