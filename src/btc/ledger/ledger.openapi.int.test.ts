import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valid, type JsonSchema } from '../../../test/fuzz/arbitraries.js';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';
import { isExactDecimal } from '../../http/types.js';
import { EVENT_FIELDS, EVENT_OPTIONAL, EVENT_TYPES } from './events.js';

const TOKEN = 'openapi-test-token-0123456789';
let t: TestApp;
let body: { schema: JsonSchema & { discriminator?: unknown }; examples: Record<string, { value: unknown }> };

beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKEN: TOKEN }, services: ledgerOnly(fakeRates()) });
  const doc = (await t.call('GET', '/openapi.json')).json();
  body = doc.paths['/api/events'].post.requestBody.content['application/json'];
});
afterAll(() => t.close());

const post = (b: unknown) => t.call('POST', '/api/events', b, { authorization: `Bearer ${TOKEN}` });

describe('the OpenAPI document of an event body', () => {
  it('describes each event type on its own: a oneOf on type, its fields required but for those left out together, no other', () => {
    expect(body.schema.discriminator).toEqual({ propertyName: 'type' });
    const branches = body.schema.oneOf!;
    expect(branches.map((b) => b.properties!.type!.enum)).toEqual(EVENT_TYPES.map((type) => [type]));
    for (const [i, type] of EVENT_TYPES.entries()) {
      expect(branches[i]!.required).toEqual(['type', 'occurred_at', ...EVENT_FIELDS[type]]);
      expect(Object.keys(branches[i]!.properties!)).toEqual([
        'type',
        'occurred_at',
        ...EVENT_FIELDS[type],
        ...EVENT_OPTIONAL[type],
      ]);
      expect(branches[i]!.additionalProperties).toBe(false);
    }
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { requestBody: unknown }>>;
    };
    expect(doc.paths['/api/events/{id}']!.put!.requestBody).toEqual(
      doc.paths['/api/events']!.post!.requestBody,
    );
  });

  it('gives an example of each type that the route accepts as shown', async () => {
    expect(Object.keys(body.examples)).toEqual([...EVENT_TYPES]);
    // In order: the buy gives the wallet the sats its transfer sends on.
    for (const type of EVENT_TYPES) {
      const res = await post(body.examples[type]!.value);
      expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
      expect(res.json()).toMatchObject(body.examples[type]!.value as object);
    }
    for (const branch of body.schema.oneOf!) {
      const [example] = (branch as { examples?: unknown[] }).examples ?? [];
      expect(example).toEqual(body.examples[(branch.properties!.type!.enum as string[])[0]!]!.value);
    }
  });

  it('takes what the route takes: a body the oneOf refuses is a 400, one it accepts never is for its fields', async () => {
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    ajv.addKeyword({ keyword: 'x-exact-decimal', validate: (d: number, v: unknown) => isExactDecimal(v, d) });
    const documented = ajv.compile({ oneOf: body.schema.oneOf });
    const extra = fc.constantFrom(
      'wallet',
      'from_wallet',
      'to_wallet',
      'sats',
      'fee_sats',
      'amount',
      'currency',
      'kind',
    );
    const bodies = fc.oneof(
      valid(body.schema),
      // What only the per-type rule refuses: a field of another type, one missing, another type.
      fc
        .tuple(valid(body.schema), extra, fc.integer({ min: 1, max: 7 }))
        .map(([b, k, v]) => ({ ...(b as object), [k]: v })),
      fc.tuple(valid(body.schema), extra).map(([b, k]) => {
        const copy = { ...(b as Record<string, unknown>) };
        delete copy[k];
        return copy;
      }),
      fc
        .tuple(valid(body.schema), fc.constantFrom(...EVENT_TYPES))
        .map(([b, type]) => ({ ...(b as object), type })),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (b) => {
        const res = await post(b);
        // A date in the future and sats + fee_sats above 2.1e15 are 400s no per-field schema can say.
        const fieldProblem =
          res.statusCode === 400 && !/is in the future|sats there will ever be/.test(res.json().detail);
        expect(fieldProblem, `${JSON.stringify(b)} → ${res.statusCode} ${res.body}`).toBe(!documented(b));
      }),
      { numRuns: 150, seed: 20261201 },
    );
  });
});
