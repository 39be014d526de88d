import type { App, AppContext } from '../../context.js';
import { problems } from '../../http/problem.js';
import { SolarQuery, SolarReadings } from './schemas.js';
import { solarOfDay } from './service.js';

export function solarRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/solar',
    {
      config: { private: true },
      schema: {
        tags: ['solar'],
        summary: 'Stored hourly solar panel readings of a Danish day',
        security: [{ bearer: [] }],
        querystring: SolarQuery,
        response: { 200: SolarReadings, ...problems(400, 401) },
      },
    },
    async (request) => solarOfDay(ctx.database.db, ctx.clock, request.query.date),
  );
}
