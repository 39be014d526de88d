import type { HomePage, PageFile } from './page.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../context.js';
import { csvColumns, jsonOrCsv, sendCsv } from '../../http/csv.js';
import { JobLines, streamJob } from '../../http/jobs.js';
import { problems } from '../../http/problem.js';
import { invalid, notFound } from '../../shared/refusal.js';
import { backfillPrices } from './command.js';
import { BackfillQuery, ElpriceDay, ElpriceItem, ElpriceQuery, PricesDay, PricesQuery } from './schemas.js';

const ELPRICE_COLUMNS = csvColumns(ElpriceItem);
import type { ElectricityPriceService, SerializedDay } from './service.js';

/**
 * Sends the answer's serialized body: Fastify passes a string through untouched, so a
 * complete day costs no serialization after its first read. A complete day never changes;
 * an incomplete one must be asked again.
 */
function sendDay(reply: FastifyReply, answer: SerializedDay): never {
  void reply
    .header('cache-control', answer.complete ? 'public, max-age=3600' : 'no-store')
    .type('application/json')
    .send(answer.json);
  return reply as never;
}

/** The file gzipped when the client takes gzip: a third of the bytes on a slow mobile link. */
function sendPageFile(request: FastifyRequest, reply: FastifyReply, file: PageFile) {
  void reply.header('vary', 'accept-encoding');
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? ''))
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}

export function priceRoutes(
  app: App,
  service: ElectricityPriceService,
  homePage: HomePage,
  shutdown: AbortSignal,
) {
  app.post(
    '/api/jobs/backfill-prices',
    {
      schema: {
        tags: ['jobs'],
        summary:
          'backfill-prices: day-ahead prices of the Danish days from..to, a month per request, its progress streamed',
        description:
          '`npm run cli -- backfill-prices` sends its work here when this service holds the embedded database.',
        security: [{ bearer: [] }],
        querystring: BackfillQuery,
        response: { 200: JobLines, ...problems(400, 401, 429) },
      },
    },
    (request, reply) => {
      const { from, to } = request.query;
      if (to < from) throw invalid(`querystring.to: ${to} is before from (${from})`);
      streamJob(request, reply, shutdown, (output, signal) =>
        backfillPrices(service, from, to, output, signal),
      );
    },
  );

  app.get(
    '/api/elprice',
    {
      schema: {
        tags: ['power'],
        summary:
          'Hourly prices with grid tariff of a Danish day (23, 24 or 25 hours), DK1 and DK2 or the area asked for',
        querystring: ElpriceQuery,
        response: { 200: jsonOrCsv(ElpriceDay), ...problems(400, 502, 503) },
      },
    },
    async (request, reply) => {
      const { date, area, format } = request.query;
      const answer =
        service.cachedElprice(date, area) ?? (await service.elprice(date, area, request.deadline.signal));
      if (format !== 'csv') return sendDay(reply, answer);
      const day = JSON.parse(answer.json.toString('utf8')) as ElpriceDay;
      void reply.header('cache-control', answer.complete ? 'public, max-age=3600' : 'no-store');
      const name = `elprice-${day.date}${area ? `-${area}` : ''}.csv`;
      return sendCsv(reply, name, ELPRICE_COLUMNS, day.items) as never;
    },
  );

  app.get(
    '/api/prices',
    {
      schema: {
        tags: ['power'],
        summary: 'Quarter-hour day-ahead prices of a Danish day (hourly rows before 2025-10-01)',
        querystring: PricesQuery,
        response: { 200: PricesDay, ...problems(400, 502, 503) },
      },
    },
    async (request, reply) => {
      const { date, area } = request.query;
      return sendDay(
        reply,
        service.cachedPrices(date, area) ?? (await service.prices(date, area, request.deadline.signal)),
      );
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['power'],
        summary: "Home page: today's and tomorrow's DK1 prices",
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'text/html' }) },
      },
    },
    async (request, reply) =>
      sendPageFile(
        request,
        reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', homePage.contentSecurityPolicy),
        homePage.html,
      ),
  );

  app.get(
    '/page/:version/:file',
    {
      schema: {
        tags: ['power'],
        summary: "The home page's script modules; a version names one set of them, cached for good",
        params: Type.Object(
          {
            version: Type.String({ pattern: '^[0-9a-f]{12}$', description: 'as the home page names it' }),
            file: Type.Union(
              [...homePage.modules.keys()].map((name) => Type.Literal(name)),
              { description: 'a module of the page' },
            ),
          },
          { additionalProperties: false },
        ),
        produces: ['text/javascript'],
        response: { 200: Type.String({ description: 'text/javascript' }), ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const { version, file } = request.params;
      const module = homePage.modules.get(file);
      // An old version is gone: answering it with today's files would cache those under its name.
      if (version !== homePage.version || module === undefined)
        throw notFound(`the home page has no version ${version}; reload the page`);
      return sendPageFile(
        request,
        reply
          .type('text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=31536000, immutable'),
        module,
      );
    },
  );
}
