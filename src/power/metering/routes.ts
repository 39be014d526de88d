import type { App } from '../../context.js';
import { csvColumns, jsonOrCsv, sendCsv } from '../../http/csv.js';
import { problems } from '../../http/problem.js';
import { DayQuery, EnergyRow, EnergyRows, SyncQuery, SyncResult } from './schemas.js';

const ENERGY_COLUMNS = csvColumns(EnergyRow);
import type { MeteringService } from './service.js';

export function meteringRoutes(app: App, service: MeteringService) {
  app.post(
    '/metering/sync',
    {
      schema: {
        tags: ['metering'],
        summary: 'Fetch and store the metering data of one past day from Eloverblik',
        security: [{ bearer: [] }],
        querystring: SyncQuery,
        response: { 200: SyncResult, ...problems(400, 401, 502, 503) },
      },
    },
    async (request) => service.sync(request.query.date, request.deadline.signal),
  );

  for (const [path, table, what] of [
    ['/api/production', 'power.production', 'delivered to the grid (D06 meter)'],
    ['/api/consumption', 'power.consumption', 'taken from the grid (D07 meter)'],
  ] as const) {
    app.get(
      path,
      {
        // Hourly consumption shows when the household is at home, so it is private like the ledger.
        config: { private: true },
        schema: {
          tags: ['metering'],
          summary: `Stored energy ${what} of a Danish day, by hour or quarter hour`,
          security: [{ bearer: [] }],
          querystring: DayQuery,
          response: { 200: jsonOrCsv(EnergyRows), ...problems(400, 401) },
        },
      },
      async (request, reply) => {
        const { date, rows } = await service.energyOfDay(table, request.query.date, request.query.resolution);
        if (request.query.format !== 'csv') return rows;
        return sendCsv(
          reply,
          `${path.slice(5)}-${date}.csv`,
          ENERGY_COLUMNS,
          rows.map((r) => ({ ...r })),
        ) as never;
      },
    );
  }
}
