import { pipeline } from 'node:stream/promises';
import type { App } from '../../context.js';
import { HttpProblem, problems } from '../../http/problem.js';
import { BackupBusy, type BackupService } from './service.js';

const PG_DUMP =
  'the database is a PostgreSQL server (DATABASE_URL): back it up with pg_dump, e.g. ' +
  '`pg_dump --format=custom --file=satwatt.dump "$DATABASE_URL"` (docs/operations.md, "Backups")';

export function backupRoutes(app: App, service: BackupService, kind: 'pglite' | 'postgres') {
  app.get(
    '/api/backup',
    {
      config: { private: true },
      schema: {
        tags: ['operations'],
        summary: 'A consistent backup of the embedded database, streamed as it is packed',
        description:
          'A gzip-compressed tar of `satwatt-backup.json` and the database folder `pg/`, as ' +
          '`npm run cli -- backup FILE` writes it and `npm run cli -- restore FILE` reads it. Other ' +
          'queries wait while the folder is copied (well under a second for a year of data); the ' +
          'packing runs after. 409 with a PostgreSQL server, which pg_dump backs up.',
        security: [{ bearer: [] }],
        produces: ['application/gzip'],
        response: {
          200: {
            description: 'application/gzip: the backup',
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problems(401, 409, 429, 503),
        },
      },
    },
    async (request, reply) => {
      if (!service.available)
        throw new HttpProblem(
          409,
          kind === 'postgres' ? PG_DUMP : 'the database is in memory: nothing to back up',
        );
      const snapshot = await service.open().catch((e: unknown) => {
        if (e instanceof BackupBusy) throw new HttpProblem(503, e.message, { 'retry-after': '30' });
        throw e;
      });
      // Taken over from Fastify: the request timeout must not cut a large backup short.
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'application/gzip',
        'content-disposition': `attachment; filename="${snapshot.name}"`,
        'cache-control': 'no-store',
      });
      await pipeline(snapshot.stream, reply.raw).catch((e: unknown) =>
        request.log.warn({ err: e }, 'backup: the download broke off'),
      );
    },
  );
}
