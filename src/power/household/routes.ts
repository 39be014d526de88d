import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { Charges, ChargesQuery } from './schemas.js';
import type { HouseholdService } from './service.js';

export function householdRoutes(app: App, service: HouseholdService) {
  app.get(
    '/api/charges',
    {
      // The grid company says where the household lives: private like metering.
      config: { private: true },
      schema: {
        tags: ['metering'],
        summary: 'Every charge in force for the household on a Danish day: tariffs, subscriptions, fees',
        security: [{ bearer: [] }],
        querystring: ChargesQuery,
        response: { 200: Charges, ...problems(400, 401, 503) },
      },
    },
    async (request): Promise<Charges> => {
      const { date, charges } = await service.chargesOn(request.query.date, request.deadline.signal);
      return {
        date,
        configured: service.current().configured,
        charges: charges.map((c) => ({
          name: c.name,
          kind: c.kind,
          role: c.role,
          applies_to: c.applies_to,
          owner_gln: c.owner_gln,
          owner: c.owner,
          code: c.code,
          source: c.source,
          valid_from: c.valid_from,
          valid_to: c.valid_to,
          resolution: c.resolution,
          prices: c.prices.map(Number),
        })),
      };
    },
  );
}
