import { Type } from 'typebox';
import type { App } from '../../context.js';
import { JobLines, streamJob } from '../../http/jobs.js';
import { HttpProblem, problems } from '../../http/problem.js';
import { invalid } from '../../shared/refusal.js';
import { utf8Fault } from '../../shared/utf8.js';
import { bufferSource, importSolarSource } from './command.js';
import { ImportQuery, SolarQuery, SolarReadings } from './schemas.js';
import { SOLAR_UPLOAD_MAX_BYTES, type SolarService } from './service.js';

export function solarRoutes(app: App, deps: { solar: SolarService; shutdown: AbortSignal }) {
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'buffer', bodyLimit: SOLAR_UPLOAD_MAX_BYTES },
    (_request, body, done) => {
      const refusal = utf8Fault(body as Buffer, { lines: true });
      done(refusal ? invalid(`body: ${refusal}`) : null, body);
    },
  );
  app.post(
    '/api/jobs/import-solar',
    {
      bodyLimit: SOLAR_UPLOAD_MAX_BYTES,
      schema: {
        tags: ['jobs'],
        summary:
          'import-solar: one CSV of hourly solar readings (the body, text/csv), all or nothing, its progress streamed',
        description:
          '`npm run cli -- import-solar` sends each file here when this service holds the embedded database. ' +
          `At most ${SOLAR_UPLOAD_MAX_BYTES} bytes.`,
        security: [{ bearer: [] }],
        querystring: ImportQuery,
        consumes: ['text/csv'],
        body: {
          content: {
            'text/csv': {
              schema: Type.Unsafe<Buffer>({
                description: 'the CSV file itself, as the inverter wrote it',
                contentMediaType: 'text/csv',
              }),
            },
          },
        },
        response: { 200: JobLines, ...problems(400, 401, 413, 415, 429) },
      },
    },
    (request, reply) => {
      const body = request.body;
      if (!Buffer.isBuffer(body))
        throw new HttpProblem(415, 'the body must be the CSV file itself, sent as Content-Type: text/csv');
      streamJob(request, reply, deps.shutdown, (output) =>
        importSolarSource(deps.solar, bufferSource(request.query.name, body), output),
      );
    },
  );

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
    async (request) => deps.solar.solarOfDay(request.query.date),
  );
}
