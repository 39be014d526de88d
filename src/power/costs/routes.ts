import type { FastifyReply } from 'fastify';
import type { App } from '../../context.js';
import { csvColumns, jsonOrCsv, sendCsv } from '../../http/csv.js';
import { problems } from '../../http/problem.js';
import {
  ConsumerPriceItem,
  ConsumerPrices,
  ConsumerPricesQuery,
  CostDay,
  CostHour,
  Costs,
  CostsQuery,
} from './schemas.js';
import type { CostService } from './service.js';

export const CONSUMER_PRICE_COLUMNS = csvColumns(ConsumerPriceItem);
export const COST_DAY_COLUMNS = csvColumns(CostDay, ['items']);
export const COST_HOUR_COLUMNS = csvColumns(CostHour);

export function costRoutes(app: App, service: CostService) {
  app.get(
    '/api/consumer-prices',
    {
      schema: {
        tags: ['power'],
        summary:
          'What a kWh costs the household in each Danish hour or quarter hour: spot, every charge, markup and VAT',
        querystring: ConsumerPricesQuery,
        response: { 200: jsonOrCsv(ConsumerPrices), ...problems(400, 502, 503) },
      },
    },
    async (request, reply) => {
      const { date, area, format, resolution } = request.query;
      const answer =
        service.cachedConsumerPrices(date, area, resolution) ??
        (await service.consumerPrices(date, area, request.deadline.signal, resolution));
      void reply.header('cache-control', answer.complete ? 'public, max-age=3600' : 'no-store');
      if (format === 'csv')
        return sendCsv(
          reply,
          `consumer-prices-${answer.body.date}-${answer.body.area}.csv`,
          CONSUMER_PRICE_COLUMNS,
          answer.body.items,
        ) as never;
      // The serialized bytes go out untouched, as /api/elprice sends its day.
      return (reply as FastifyReply).type('application/json').send(answer.json) as never;
    },
  );

  app.get(
    '/api/costs',
    {
      // What the household paid, hour by hour, shows when it is at home: private like metering.
      config: { private: true },
      schema: {
        tags: ['metering'],
        summary: 'Cost of the metered consumption, value of the production sold, solar self-consumption',
        security: [{ bearer: [] }],
        querystring: CostsQuery,
        response: { 200: jsonOrCsv(Costs), ...problems(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { from, to, resolution, format } = request.query;
      const costs = await service.costs(from, to, resolution, request.deadline.signal);
      if (format !== 'csv') return costs;
      const name = `costs-${from}-${to}.csv`;
      if (resolution === 'hour')
        return sendCsv(
          reply,
          name,
          COST_HOUR_COLUMNS,
          costs.days.flatMap((d) => d.items ?? []),
        );
      return sendCsv(reply, name, COST_DAY_COLUMNS, costs.days);
    },
  );
}
