import type { FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../context.js';
import { jsonOrCsv, sendCsv } from '../../http/csv.js';
import { JobLines, streamJob } from '../../http/jobs.js';
import { problems } from '../../http/problem.js';
import { rebuildTables } from './command.js';
import type { createReadFunctions } from './reads.js';
import * as s from './schemas.js';
import type { LedgerService } from './service.js';
import type { createWalletFunctions } from './wallets.js';

/** The ledger's writes, its wallets and its reads, which the routes call directly. */
export interface LedgerParts {
  ledger: LedgerService;
  wallets: ReturnType<typeof createWalletFunctions>;
  reads: ReturnType<typeof createReadFunctions>;
}

const tags = ['ledger'];
const security = [{ bearer: [] }];
/** Ledger reads reveal the household's holdings, so they need the token like writes do. */
const config = { private: true };

/**
 * The validator of an event body: the document shows each type on its own (EventBody), the
 * validator checks the envelope of every field's shape (EventEnvelope), and the ledger which
 * fields a type carries, in its own words.
 */
function envelopeValidator(app: App): FastifySchemaCompiler<unknown> {
  return (route) =>
    app.validatorCompiler!(route.httpPart === 'body' ? { ...route, schema: s.EventEnvelope } : route);
}

export function ledgerRoutes(app: App, { ledger, wallets, reads }: LedgerParts, shutdown: AbortSignal) {
  const validatorCompiler = envelopeValidator(app);
  app.get(
    '/api/wallets',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Wallets with their balance in sats',
        querystring: s.WalletQuery,
        response: { 200: s.WalletList, ...problems(400, 401) },
      },
    },
    async (req) => wallets.listWallets(req.query.type),
  );
  app.get(
    '/api/wallets/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'One wallet with its balance in sats',
        params: s.WalletIdParams,
        response: { 200: s.Wallet, ...problems(400, 401, 404) },
      },
    },
    async (req) => wallets.getWallet(req.params.id),
  );
  app.post(
    '/api/wallets',
    {
      schema: {
        tags,
        security,
        summary: 'Create a wallet (an exchange account or a wallet of your own); its name is unique',
        body: s.NewWallet,
        response: { 201: s.Wallet, ...problems(400, 401, 409) },
      },
    },
    async (req, reply) => reply.code(201).send(await wallets.createWallet(req.body)),
  );
  app.patch(
    '/api/wallets/:id',
    {
      schema: {
        tags,
        security,
        summary:
          'Rename a wallet, change its type (not while events name it), or set or remove its watch key (docs/chain.md)',
        params: s.WalletIdParams,
        body: s.WalletPatch,
        response: { 200: s.Wallet, ...problems(400, 401, 404, 409) },
      },
    },
    async (req) => wallets.patchWallet(req.params.id, req.body),
  );
  app.delete(
    '/api/wallets/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a wallet that no event names',
        params: s.WalletIdParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      await wallets.deleteWallet(req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/events',
    {
      config,
      schema: {
        tags,
        security,
        summary:
          'Events ordered by occurred_at, then id; pass next_cursor as cursor for the next page; format=csv for all of them',
        querystring: s.EventQuery,
        response: { 200: jsonOrCsv(s.EventPage), ...problems(400, 401) },
      },
    },
    async (req, reply) =>
      req.query.format === 'csv'
        ? sendCsv(reply, 'events.csv', s.CSV_COLUMNS.events, reads.allEvents(req.query, req.deadline.signal))
        : reads.listEvents(req.query),
  );
  app.get(
    '/api/events/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'One event',
        params: s.IdParams,
        response: { 200: s.Event, ...problems(400, 401, 404) },
      },
    },
    async (req) => reads.getEvent(req.params.id),
  );
  app.post(
    '/api/events',
    {
      validatorCompiler,
      schema: {
        tags,
        security,
        summary: 'Record an event; an Idempotency-Key header makes a retry return the first answer',
        headers: s.IdempotencyHeaders,
        body: s.EventBody,
        response: { 201: s.Event, ...problems(400, 401, 409, 422, 502, 503) },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await ledger.createEvent(req.body, req.headers['idempotency-key'], req.deadline.signal)),
  );
  app.put(
    '/api/events/:id',
    {
      validatorCompiler,
      schema: {
        tags,
        security,
        summary: 'Replace an event',
        params: s.IdParams,
        body: s.EventBody,
        response: { 200: s.Event, ...problems(400, 401, 404, 409, 422, 502, 503) },
      },
    },
    async (req) => ledger.replaceEvent(req.params.id, req.body),
  );
  app.delete(
    '/api/events/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete an event, unless the ledger would break without it',
        params: s.IdParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      await ledger.deleteEvent(req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/deposits',
    {
      config,
      schema: {
        tags,
        security,
        summary:
          'Deposits with the amount in EUR, DKK and USD at the rates of their date, a page at a time like /api/events; format=csv for all of them',
        querystring: s.ListQuery,
        response: { 200: jsonOrCsv(s.DepositPage), ...problems(400, 401) },
      },
    },
    async (req, reply) =>
      req.query.format === 'csv'
        ? sendCsv(
            reply,
            'deposits.csv',
            s.CSV_COLUMNS.deposits,
            reads.allDeposits(req.query, req.deadline.signal),
          )
        : reads.listDeposits(req.query),
  );
  app.get(
    '/api/deposits/totals',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Fiat deposited per exchange and currency; format=csv as text/csv',
        querystring: s.TotalsQuery,
        response: { 200: jsonOrCsv(Type.Array(s.DepositTotal)), ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      const totals = await reads.depositTotals();
      return req.query.format === 'csv'
        ? sendCsv(reply, 'deposit-totals.csv', s.CSV_COLUMNS.totals, totals)
        : totals;
    },
  );
  app.get(
    '/api/buys',
    {
      config,
      schema: {
        tags,
        security,
        summary:
          'Buys with the amount in EUR at the rates of their date, a page at a time like /api/events; format=csv for all of them',
        querystring: s.ListQuery,
        response: { 200: jsonOrCsv(s.BuyPage), ...problems(400, 401) },
      },
    },
    async (req, reply) =>
      req.query.format === 'csv'
        ? sendCsv(reply, 'buys.csv', s.CSV_COLUMNS.buys, reads.allBuys(req.query, req.deadline.signal))
        : reads.listBuys(req.query),
  );
  for (const table of ['deposits', 'buys'] as const) {
    app.post(
      `/api/${table}/rebuild`,
      {
        schema: {
          tags,
          security,
          summary: `Recompute ${table} from all events, atomically`,
          response: { 200: s.Rebuilt, ...problems(401, 502, 503) },
        },
      },
      async () => ({ rebuilt: await ledger.rebuild(table) }),
    );
  }
  app.post(
    '/api/jobs/ledger-rebuild',
    {
      schema: {
        tags: ['jobs'],
        summary:
          'ledger-rebuild: recompute the read tables from all events, each atomically, the lines streamed',
        description:
          '`npm run cli -- ledger-rebuild` sends its work here when this service holds the embedded database.',
        security,
        querystring: s.RebuildQuery,
        response: { 200: JobLines, ...problems(400, 401, 429) },
      },
    },
    (request, reply) =>
      streamJob(request, reply, shutdown, (output, signal) =>
        rebuildTables(ledger, request.query.table ?? 'all', request.query.times ?? 1, output, signal),
      ),
  );
}
