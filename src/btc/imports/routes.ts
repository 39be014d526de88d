import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../context.js';
import { JobLines, streamJob } from '../../http/jobs.js';
import { HttpProblem, problemBody, problems } from '../../http/problem.js';
import { IMPORT_JOB_MAX_BYTES, importLedgerText } from './command.js';
import { bodyText } from '../../http/utf8.js';
import * as s from './schemas.js';
import { ImportOptionRefused, ImportRefused, type ImportService } from './service.js';

/** Problems listed in a refusal at most; the detail still counts them all. */
const LISTED = 1000;

const EXAMPLE = [
  'txid,refid,time,type,subtype,aclass,asset,amount,fee,balance',
  'LDEP1-AAAAA-AAAAAA,QDEP1-AAAAA-AAAAAA,2025-03-03 08:00:00,deposit,,currency,ZEUR,500.0000,0.0000,500.0000',
  'LTRD1-AAAAA-AAAAAA,TTRD1-AAAAA-AAAAAA,2025-03-03 09:15:00,trade,,currency,ZEUR,-499.2200,0.7800,0.0000',
  'LTRD2-AAAAA-AAAAAA,TTRD1-AAAAA-AAAAAA,2025-03-03 09:15:00,trade,,currency,XXBT,0.0060000000,0.0000000000,0.0060000000',
  'LWDR1-AAAAA-AAAAAA,AWDR1-AAAAA-AAAAAA,2025-03-04 10:00:00,withdrawal,,currency,XXBT,-0.0059000000,0.0001000000,0.0000000000',
].join('\n');

export async function importRoutes(app: App, imports: ImportService, shutdown: AbortSignal): Promise<void> {
  // A scope of its own, so that only this route reads CSV bodies, and reads up to 16 MiB of them.
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      ['text/csv', 'text/plain'],
      { parseAs: 'buffer', bodyLimit: s.IMPORT_MAX_BYTES },
      (_request, body, done) => {
        try {
          done(null, bodyText(body as Buffer, { lines: true }));
        } catch (e) {
          done(e as Error, undefined);
        }
      },
    );
    scope.post(
      '/api/jobs/import-ledger',
      {
        bodyLimit: IMPORT_JOB_MAX_BYTES,
        schema: {
          tags: ['jobs'],
          security: [{ bearer: [] }],
          summary:
            'import-ledger: one exchange export (the body, text/csv), all or nothing, its lines streamed',
          description:
            '`npm run cli -- import-ledger` sends its file here when this service holds the embedded database. ' +
            `At most ${IMPORT_JOB_MAX_BYTES} bytes.`,
          querystring: s.ImportJobQuery,
          consumes: ['text/csv'],
          body: {
            content: { 'text/csv': { schema: Type.String({ description: 'the export file itself' }) } },
          },
          response: { 200: JobLines, ...problems(400, 401, 413, 415, 429) },
        },
      },
      (req, reply) => {
        const { name, source, exchange, to_wallet, dry_run } = req.query;
        if (typeof req.body !== 'string') throw new HttpProblem(400, 'body: send the file as text/csv');
        const text = req.body;
        streamJob(req, reply, shutdown, (output, signal) =>
          importLedgerText(
            imports,
            name,
            text,
            { source, exchange, to_wallet, dry_run: dry_run ?? false },
            output,
            signal,
          ),
        );
      },
    );
    scope.post(
      '/api/imports',
      {
        bodyLimit: s.IMPORT_MAX_BYTES,
        schema: {
          tags: ['ledger'],
          security: [{ bearer: [] }],
          summary: 'Import an exchange export into the ledger, all or nothing',
          description:
            "The body is the file (text/csv, up to 16 MiB): Kraken's ledger export (source=kraken), or one event per line (source=csv). " +
            'Importing the same or an overlapping file again creates only what is new. Any malformed line or broken ledger rule is a 422 listing every problem with its line; nothing is written.',
          querystring: s.ImportQuery,
          body: {
            content: {
              'text/csv': { schema: Type.String({ examples: [EXAMPLE] }) },
              'text/plain': { schema: Type.String() },
            },
          },
          response: {
            200: s.ImportAnswer,
            201: s.ImportAnswer,
            422: s.ImportProblem,
            ...problems(400, 401, 413, 415, 502, 503),
          },
        },
      },
      async (req, reply) => {
        const { source, exchange, to_wallet, dry_run } = req.query;
        // Without a Content-Type no parser ran and no body schema applied.
        if (typeof req.body !== 'string') throw new HttpProblem(400, 'body: send the file as text/csv');
        try {
          const answer = await imports.importLedger(
            req.body,
            { source, exchange, to_wallet, dry_run },
            { signal: req.deadline.signal },
          );
          return reply.code(answer.created > 0 && !answer.dry_run ? 201 : 200).send(answer);
        } catch (e) {
          if (e instanceof ImportOptionRefused) {
            const detail = `querystring.${e.option}: ${e.reason}`;
            if (e.missing) throw new HttpProblem(400, detail);
            return reply
              .code(422)
              .type('application/problem+json')
              .send({ ...problemBody(422, detail), problems: [] });
          }
          if (!(e instanceof ImportRefused)) throw e;
          const first = e.problems.slice(0, 3).map((p) => `line ${p.line}: ${p.reason}`);
          const more = e.problems.length > 3 ? `; and ${e.problems.length - 3} more` : '';
          return reply
            .code(422)
            .type('application/problem+json')
            .send({
              ...problemBody(422, `nothing was imported: ${first.join('; ')}${more}`),
              problems: e.problems.slice(0, LISTED),
            });
        }
      },
    );
  });
}
