import type { App } from '../../context.js';
import { csvColumns, jsonOrCsv, sendCsv } from '../../http/csv.js';
import { JobLines, streamJob } from '../../http/jobs.js';
import { problems } from '../../http/problem.js';
import { syncMonth, type SyncMonthDeps } from './command.js';
import { DayQuery, EnergyRow, EnergyRows, SyncMonthQuery, SyncQuery, SyncResult } from './schemas.js';

const ENERGY_COLUMNS = csvColumns(EnergyRow);
import type { MeteringService } from './service.js';

export function meteringRoutes(
  app: App,
  service: MeteringService,
  job: Omit<SyncMonthDeps, 'service'> & { shutdown: AbortSignal },
) {
  app.post(
    '/api/jobs/sync-month',
    {
      schema: {
        tags: ['jobs'],
        summary: 'sync-month: the metering sync of each past day of a month, its progress streamed',
        description:
          '`npm run cli -- sync-month` sends its work here when this service holds the embedded database.',
        security: [{ bearer: [] }],
        querystring: SyncMonthQuery,
        response: { 200: JobLines, ...problems(400, 401, 429) },
      },
    },
    (request, reply) =>
      streamJob(request, reply, job.shutdown, (output, signal) =>
        syncMonth({ ...job, service }, request.query.month, output, signal),
      ),
  );

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

  for (const [path, energy, what] of [
    ['/api/production', 'production', 'delivered to the grid (D06 meter)'],
    ['/api/consumption', 'consumption', 'taken from the grid (D07 meter)'],
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
        const { date, rows } = await service.energyOfDay(
          energy,
          request.query.date,
          request.query.resolution,
        );
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
