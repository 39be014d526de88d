import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { answer, malformed } from './answer.js';
import { ProviderError } from './errors.js';

const Text = Type.String({ minLength: 1, 'x-refused': 'is not a text' });
const Row = Type.Object({
  id: Type.Refine(
    Text,
    (v) => /^\d+$/.test(v),
    (v) => `"${v}" is not a number as text`,
  ),
  name: Type.String(),
  price: Type.Union([Type.Number(), Type.Null()], { 'x-refused': 'is not a price' }),
  tags: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
});
const Rows = Type.Object({ rows: Type.Array(Row) });

describe('a declared provider answer', () => {
  it('takes an answer as declared, typed', () => {
    const body: unknown = { rows: [{ id: '1', name: 'a', price: null, extra: true }] };
    expect(answer('p', Rows).parse(body).rows[0]?.id).toBe('1');
    expect(answer('p', Rows).is(body)).toBe(true);
    expect(answer('p', Rows).refusal(body)).toBeNull();
  });

  it('refuses any other as a malformed answer of its provider, naming the place and what is wrong', () => {
    const e = (() => {
      try {
        answer('p', Rows).parse({ rows: [{ id: '1', name: 2, price: 1 }] }, 'the list');
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).message).toBe('p: malformed answer: the list at /rows/0/name must be string');
    expect((e as ProviderError).transient).toBe(false);
  });

  it.each([
    [
      'a field saying what is wrong with it, when missing too',
      { rows: [{ name: 'a', price: 1 }] },
      '/rows/0/id is not a text',
    ],
    [
      'a refinement, with the value',
      { rows: [{ id: 'x', name: 'a', price: 1 }] },
      '/rows/0/id "x" is not a number as text',
    ],
    [
      'a union by what the union says, once',
      { rows: [{ id: '1', name: 'a', price: '1' }] },
      '/rows/0/price is not a price',
    ],
    [
      'a union by the branch that got further',
      { rows: [{ id: '1', name: 'a', price: 1, tags: [1] }] },
      '/rows/0/tags/0 must be string',
    ],
    [
      'a missing field without its own words at its object',
      { rows: [{ id: '1', price: 1 }] },
      '/rows/0 must have required properties name',
    ],
    ['the whole answer as /', [], '/ must be object'],
  ])('says %s', (_what, body, said) => {
    expect(answer('p', Rows).refusal(body)).toBe(said);
  });

  it('names at most three places, each once, and places as code reads them where asked', () => {
    const body = { rows: [1, 2, 3, 4].map(() => ({ id: '', name: 1, price: 1 })) };
    expect(answer('p', Rows).refusal(body)?.split('; ')).toEqual([
      '/rows/0/id is not a text',
      '/rows/0/name must be string',
      '/rows/1/id is not a text',
    ]);
    expect(answer('p', Rows, 'accessor').refusal({ rows: [{ id: '1', price: 1 }] })).toBe(
      'rows[0] must have required properties name',
    );
    expect(answer('p', Rows, 'accessor').refusal(5)).toBe('answer must be object');
  });

  it('says malformed answers in one way', () => {
    expect(malformed('p', 'x').message).toBe('p: malformed answer: x');
  });
});
