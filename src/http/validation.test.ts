import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { AnyCase, DAYS, Day, isDayIn } from './types.js';
import { validatorCompiler } from './validation.js';

const compile = validatorCompiler();
function check(schema: TSchema, httpPart: string, data: unknown) {
  const validate = compile({ schema, httpPart, method: 'GET', url: '/x' }) as ((d: unknown) => boolean) & {
    errors?: { instancePath: string; message?: string }[] | null;
  };
  const copy = structuredClone(data);
  const ok = validate(copy);
  return {
    ok,
    data: copy,
    error: ok ? null : `${validate.errors?.[0]?.instancePath} ${validate.errors?.[0]?.message}`,
  };
}

const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })),
  id: Type.Optional(Type.Integer()),
  ratio: Type.Optional(Type.Number()),
});

describe('numbers: the validator takes plain decimal digits only, finite and within the safe integers', () => {
  it.each([
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '1e2',
    '0x10',
    ' 7',
    '7 ',
    '+7',
    '10.0',
    '1.5',
    '',
    '1_0',
  ])('refuses limit=%s with a message naming it', (text) => {
    const r = check(Query, 'querystring', { limit: text });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^\/limit /);
  });

  it('coerces plain digits, and negative zero is zero', () => {
    expect(check(Query, 'querystring', { limit: '60' }).data).toEqual({ limit: 60 });
    expect(check(Query, 'params', { id: '-0' }).ok).toBe(true);
    expect(check(Query, 'querystring', { ratio: '-2.25' }).data).toEqual({ ratio: -2.25 });
    expect(check(Query, 'querystring', { ratio: '1e3' }).ok).toBe(false);
  });

  it('bounds an integer that names no bound by the safe integers, in every part', () => {
    expect(check(Query, 'querystring', { id: '9007199254740991' }).ok).toBe(true);
    expect(check(Query, 'querystring', { id: '9007199254740993' }).error).toMatch(/^\/id must be <=/);
    expect(check(Type.Object({ id: Type.Integer() }), 'body', { id: 2 ** 60 }).ok).toBe(false);
    expect(check(Type.Object({ id: Type.Integer() }), 'body', { id: -(2 ** 60) }).ok).toBe(false);
  });

  it('does not coerce JSON bodies: a money string stays exact text, a numeric string is no number', () => {
    const Money = Type.Object({
      amount: Type.Union([Type.Number(), Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })]),
      sats: Type.Optional(Type.Integer()),
    });
    const exact = '12345678901234567.123456789';
    expect(check(Money, 'body', { amount: exact }).data).toEqual({ amount: exact });
    expect(check(Money, 'body', { amount: 1, sats: '5' }).ok).toBe(false);
    expect(check(Money, 'body', { amount: Infinity }).ok).toBe(false);
  });

  it('matches header names in any case', () => {
    const Headers = Type.Object({ 'Idempotency-Key': Type.String({ maxLength: 3 }) });
    expect(check(Headers, 'headers', { 'idempotency-key': 'abc' }).ok).toBe(true);
    expect(check(Headers, 'headers', { 'idempotency-key': 'toolong' }).ok).toBe(false);
  });
});

describe('dates: one day type, a real calendar day inside the range of its data', () => {
  const Q = Type.Object({ date: Day(DAYS.ledger) });
  it.each([
    '0000-01-01',
    '9999-12-31',
    '2009-01-02',
    '2100-01-01',
    '2025-02-29',
    '2025-04-31',
    '2025-13-01',
    '2025-1-1',
  ])('refuses %s', (date) => expect(check(Q, 'querystring', { date }).ok).toBe(false));
  it.each(['2009-01-03', '2024-02-29', '2099-12-31'])('takes %s', (date) =>
    expect(check(Q, 'querystring', { date }).ok).toBe(true),
  );
  it('checks a day outside any schema the same way', () => {
    expect(isDayIn(DAYS.ledger, '2009-01-03')).toBe(true);
    expect(isDayIn(DAYS.ledger, '2009-01-02')).toBe(false);
    expect(isDayIn(DAYS.ledger, '2023-02-29')).toBe(false);
    expect(isDayIn(DAYS.prices, '0000-01-01')).toBe(false);
  });
});

describe('a choice in any letter case: the value becomes the literal as listed', () => {
  const AreaQuery = Type.Object({ area: Type.Optional(AnyCase(['DK1', 'DK2'], 'an area')) });

  it.each(['dk1', 'Dk1', 'dK1', 'DK1'])('%s is taken as DK1', (area) => {
    expect(check(AreaQuery, 'querystring', { area })).toEqual({
      ok: true,
      data: { area: 'DK1' },
      error: null,
    });
  });

  it('refuses a value that is none of them in any case, and leaves a plain choice case-sensitive', () => {
    expect(check(AreaQuery, 'querystring', { area: 'dk3' }).ok).toBe(false);
    const Plain = Type.Object({ area: Type.Union([Type.Literal('DK1'), Type.Literal('DK2')]) });
    expect(check(Plain, 'querystring', { area: 'dk1' }).ok).toBe(false);
  });
});
