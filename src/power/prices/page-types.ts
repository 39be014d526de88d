import type { TSchema } from 'typebox';
import { comment, typeScriptOf } from '../../shared/typescript.js';
import { Cheapest, ConsumerPrices } from '../costs/schemas.js';
import { CheapestWindow } from '../windows/schemas.js';
import { ElpriceDay, PricesDay } from './schemas.js';

/** The answers the home page reads, by the name of their schema, with the route that sends each. */
export const PAGE_ANSWERS: Record<string, [route: string, schema: TSchema]> = {
  ElpriceDay: ['GET /api/elprice', ElpriceDay],
  PricesDay: ['GET /api/prices', PricesDay],
  ConsumerPrices: ['GET /api/consumer-prices', ConsumerPrices],
  Cheapest: ['GET /api/cheapest?hours=', Cheapest],
  CheapestWindow: ['GET /api/cheapest?minutes=', CheapestWindow],
};

/**
 * page/api.d.ts: the types of the answers the page reads, written from the routes' schemas (the
 * page is plain JavaScript and imports them in its JSDoc). `npm run page-types` writes it; a test
 * holds it current, and the type checker holds it equal to `Static<>` of each schema.
 */
export async function pageTypes(): Promise<string> {
  const types = Object.entries(PAGE_ANSWERS).flatMap(([name, [route, schema]]) => [
    '',
    ...comment(route, ''),
    `export type ${name} = ${typeScriptOf(schema)};`,
  ]);
  const text = [
    '// Generated from the schemas of the routes by `npm run page-types` (src/power/prices/page-types.ts):',
    '// change the schemas, not this file.',
    ...types,
    '',
  ].join('\n');
  // as Prettier writes it, so that `npm run check` finds it formatted (loaded only here)
  const prettier = await import('prettier');
  return prettier.format(text, {
    ...(await prettier.resolveConfig(PAGE_TYPES)),
    filepath: PAGE_TYPES.pathname,
  });
}

export const PAGE_TYPES = new URL('./page/api.d.ts', import.meta.url);
