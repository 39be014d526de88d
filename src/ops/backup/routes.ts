import { pipeline } from 'node:stream/promises';
import { Type } from 'typebox';
import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { conflict } from '../../shared/refusal.js';
import type { BackupService } from './service.js';

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
          'packing runs after, and the archive is sent as it is packed. One backup is made at a ' +
          'time: while one is (this route, the daily backup or the `backup` command), the answer ' +
          'is 429 with `Retry-After`. A client that leaves the data unread for `BACKUP_STALL_MS` is ' +
          'cut off. 409 with a PostgreSQL server, which pg_dump backs up. HEAD answers what a GET ' +
          'would now, making nothing.',
        security: [{ bearer: [] }],
        querystring: Type.Object({}, { additionalProperties: false }),
        produces: ['application/gzip'],
        response: {
          200: {
            description: 'application/gzip: the backup',
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problems(400, 401, 409, 429),
        },
      },
    },
    async (request, reply) => {
      if (!service.available)
        throw conflict(kind === 'postgres' ? PG_DUMP : 'the database is in memory: nothing to back up');
      if (request.method === 'HEAD') {
        // whether a GET would be answered now; nothing is made
        service.checkFree();
        return reply.code(200).type('application/gzip').header('cache-control', 'no-store').send('');
      }
      const download = await service.download();
      if (reply.sent) return void download.stream.destroy(); // answered 503 by the request timeout meanwhile
      // Taken over from Fastify: the request timeout must not cut a large backup short.
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'application/gzip',
        'content-disposition': `attachment; filename="${download.name}"`,
        'cache-control': 'no-store',
      });
      await pipeline(download.stream, reply.raw).catch((e: unknown) =>
        request.log.warn({ err: e }, 'backup: the download was cut off'),
      );
    },
  );
}
