import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { Co2Day, Co2Query } from './schemas.js';
import type { Co2Service } from './service.js';

export function co2Routes(app: App, service: Co2Service) {
  app.get(
    '/api/co2',
    {
      schema: {
        tags: ['power'],
        summary:
          "The grid's CO₂ intensity in each quarter hour or hour of a Danish day, g/kWh, realized or forecast",
        querystring: Co2Query,
        response: { 200: Co2Day, ...problems(400, 502, 503) },
      },
    },
    async (request, reply) => {
      const { date, area, resolution } = request.query;
      const day = await service.day(date, area, resolution, request.deadline.signal);
      const final = day.complete && day.items.every((i) => i.kind === 'realized');
      void reply.header('cache-control', final ? 'public, max-age=3600' : 'no-store');
      return day;
    },
  );
}
