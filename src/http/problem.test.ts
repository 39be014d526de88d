import type { FastifyError } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { validationDetail } from './problem.js';
import { Amount } from './types.js';
import { validatorCompiler } from './validation.js';

const compile = validatorCompiler();

/** The detail of the 400 a request part would get, from the project's own validator. */
function detailFor(schema: TSchema, httpPart: string, data: unknown, partSchema?: TSchema): string {
  const validate = compile({ schema, httpPart, method: 'GET', url: '/x' }) as ((d: unknown) => boolean) & {
    errors?: FastifyError['validation'] | null;
  };
  expect(validate(structuredClone(data))).toBe(false);
  const error = Object.assign(new Error('invalid'), {
    code: 'FST_ERR_VALIDATION',
    name: 'FastifyError',
    validation: validate.errors ?? [],
    validationContext: httpPart,
  }) as unknown as FastifyError;
  return validationDetail(error, partSchema);
}

const Query = Type.Object(
  {
    area: Type.Optional(Type.Union([Type.Literal('DK1'), Type.Literal('DK2')])),
    format: Type.Optional(Type.Literal('csv')),
    kind: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('month')])),
    day: Type.Optional(Type.String({ format: 'date' })),
  },
  { additionalProperties: false },
);

describe('validationDetail', () => {
  it('names every allowed value of a choice, and the one value of a literal', () => {
    expect(detailFor(Query, 'querystring', { area: 'dk1' })).toBe(
      'querystring.area: must be one of "DK1", "DK2"',
    );
    expect(detailFor(Query, 'querystring', { kind: 'week' })).toBe(
      'querystring.kind: must be one of "hour", "day", "month"',
    );
    expect(detailFor(Query, 'querystring', { format: 'CSV' })).toBe('querystring.format: must be "csv"');
  });

  it('names an unknown field and a malformed date', () => {
    expect(detailFor(Query, 'querystring', { extra: '1' })).toBe('querystring.extra: unknown parameter');
    expect(detailFor(Query, 'querystring', { extra: '1' }, Query)).toBe(
      'querystring.extra: unknown parameter; this route takes area, format, kind, day',
    );
    expect(detailFor(Query, 'querystring', { ['x'.repeat(5000)]: '1' })).toBe(
      `querystring.${'x'.repeat(100)}…: unknown parameter`,
    );
    const None = Type.Object({}, { additionalProperties: false });
    expect(detailFor(None, 'querystring', { format: 'xyz' }, None)).toBe(
      'querystring.format: unknown parameter; this route takes no query parameters',
    );
    const Body = Type.Object(
      {
        sats: Type.Integer(),
        to: Type.Optional(Type.Object({ id: Type.Integer() }, { additionalProperties: false })),
      },
      { additionalProperties: false },
    );
    expect(detailFor(Body, 'body', { sats: 1, note: 'x' }, Body)).toBe(
      'body.note: unknown field; the body takes sats, to',
    );
    expect(detailFor(Body, 'body', { sats: 1, to: { id: 1, name: 'x' } }, Body)).toBe(
      'body.to.name: unknown field',
    );
    expect(detailFor(Query, 'querystring', { day: '2026-02-30' })).toBe(
      'querystring.day: must be a calendar date YYYY-MM-DD',
    );
  });

  it('answers a decimal comma with the dotted number to send, never a regular expression', () => {
    const Body = Type.Object({ amount: Amount() });
    expect(detailFor(Body, 'body', { amount: '12,50' })).toBe(
      'body.amount: "12,50" is not a decimal number; use a dot: 12.50',
    );
    expect(detailFor(Body, 'body', { amount: '12.5x' })).toBe(
      'body.amount: "12.5x" is not a positive decimal with at most 8 decimals (digits, and a dot before the decimals)',
    );
    expect(detailFor(Body, 'body', { amount: 0.1 + 0.2 })).toMatch(
      /^body\.amount: 0\.30000000000000004 is not /,
    );
    expect(detailFor(Body, 'body', { amount: true })).toBe(
      'body.amount: must be a positive decimal with at most 8 decimals: a string such as "12.50", or a number',
    );
    const Query = Type.Object({ ratio: Type.Number() });
    expect(detailFor(Query, 'querystring', { ratio: '1,5' })).toBe(
      'querystring.ratio: "1,5" is not a decimal number; use a dot: 1.5',
    );
  });
});
