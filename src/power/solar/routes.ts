import type { App } from '../../context.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { problems } from '../../http/problem.js';
import { SolarQuery, SolarReadings } from './schemas.js';
import { solarOfDay } from './service.js';

export function solarRoutes(app: App, deps: { db: Db; clock: Clock }) {
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
    async (request) => solarOfDay(deps.db, deps.clock, request.query.date),
  );
}
