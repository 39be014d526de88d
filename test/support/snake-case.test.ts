import { describe, expect, it } from 'vitest';
import { isSnakeCase, nonSnakeKeys, nonSnakeSchemaNames } from './snake-case.js';

const Rate = {
  type: 'object',
  properties: { amount: { type: 'string' }, sourceCurrency: { type: 'string' } },
};
const Quote = {
  type: 'object',
  properties: { quote_sats: { type: 'integer' }, rates: { type: 'array', items: Rate } },
};
const Health = {
  type: 'object',
  properties: {
    feeds: { type: 'object', patternProperties: { '^.*$': { type: 'object', properties: {} } } },
  },
};

describe('the snake_case checks', () => {
  it('knows snake_case', () => {
    for (const name of ['btc_dkk', 'time_dk', 'csv_locale', 'at', 'usd_eur', 'spread_pct_avg'])
      expect(isSnakeCase(name)).toBe(true);
    for (const name of ['sourceCurrency', 'Date', 'btc-dkk', '_x', 'x_', 'a__b', '', 'last_rates_'])
      expect(isSnakeCase(name)).toBe(false);
  });

  it('finds a camelCase field declared deep in a schema, through arrays and unions', () => {
    expect(nonSnakeSchemaNames(Quote, 'quote')).toEqual(['quote.rates[].sourceCurrency']);
    expect(nonSnakeSchemaNames({ anyOf: [Quote, { type: 'null' }] })).toEqual(['.rates[].sourceCurrency']);
    expect(nonSnakeSchemaNames(Health)).toEqual([]);
  });

  it('finds a camelCase key deep in an answer, but not the keys of a record', () => {
    const answer = { quote_sats: 1, rates: [{ amount: '1', sourceCurrency: 'BTC' }] };
    expect(nonSnakeKeys(answer, Quote)).toEqual(['.rates[0].sourceCurrency']);
    expect(nonSnakeKeys(answer)).toEqual(['.rates[0].sourceCurrency']);
    expect(nonSnakeKeys({ feeds: { 'metering-sync': { lastError: 'x' } } }, Health)).toEqual([
      '.feeds.metering-sync.lastError',
    ]);
    expect(nonSnakeKeys({ securitySchemes: {} }, { type: 'object', additionalProperties: true })).toEqual([]);
  });
});
