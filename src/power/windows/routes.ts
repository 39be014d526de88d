import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { invalid } from '../../shared/refusal.js';
import { Cheapest } from '../costs/schemas.js';
import type { CostService } from '../costs/service.js';
import { CheapestQuery, CheapestWindow, GreenestQuery, GreenestWindow } from './schemas.js';
import type { WindowService } from './service.js';

export function windowRoutes(app: App, windows: WindowService, costs: Pick<CostService, 'cheapest'>) {
  app.get(
    '/api/cheapest',
    {
      schema: {
        tags: ['power'],
        summary:
          'The cheapest run of consecutive quarter hours of a given length (minutes=), or of whole hours of a day (hours=)',
        querystring: CheapestQuery,
        response: { 200: Type.Union([CheapestWindow, Cheapest]), ...problems(400, 404, 502, 503) },
      },
    },
    async (request, reply) => {
      const { minutes, after, before, hours, date, area } = request.query;
      if (minutes !== undefined) {
        if (hours !== undefined)
          throw invalid('querystring.hours: give minutes (quarter hours) or hours (whole hours), not both');
        if (date !== undefined)
          throw invalid('querystring.date: goes with hours; with minutes, give after and before');
        const q = { minutes, after, before, area };
        // A cached answer leaves the request's deadline signal unmade.
        const json = windows.cachedCheapest(q) ?? (await windows.cheapest(q, request.deadline.signal));
        return (reply as FastifyReply).type('application/json').send(json) as never;
      }
      if (hours === undefined)
        throw invalid(
          "querystring.minutes: required: the window's length, 15 to 720 in steps of 15 (or hours=1..12 for whole hours)",
        );
      if (after !== undefined || before !== undefined)
        throw invalid(
          `querystring.${after !== undefined ? 'after' : 'before'}: goes with minutes, not hours`,
        );
      return costs.cheapest(hours, date, area, request.deadline.signal);
    },
  );

  app.get(
    '/api/greenest',
    {
      schema: {
        tags: ['power'],
        summary:
          'The run of consecutive quarter hours of a given length with the lowest CO₂ intensity, realized or forecast',
        querystring: GreenestQuery,
        response: { 200: GreenestWindow, ...problems(400, 404, 502, 503) },
      },
    },
    async (request) => {
      const { minutes, after, before, area } = request.query;
      return windows.greenest({ minutes, after, before, area }, request.deadline.signal);
    },
  );
}
