import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Nullable } from '../http/types.js';
import { typeScriptOf } from './typescript.js';

describe('a TypeScript type written from a schema', () => {
  it('writes what Static<> makes of it: literals, unions, nullable types, arrays, records, optional fields', () => {
    const schema = Type.Object({
      basis: Type.Union([Type.Literal('total'), Type.Literal("it's")]),
      price: Nullable(Type.Number({ description: 'DKK' })),
      tags: Type.Array(Type.Union([Type.String(), Type.Integer()])),
      rates: Type.Record(Type.String(), Type.Number()),
      'odd-name': Type.Optional(Type.Boolean()),
    });
    expect(typeScriptOf(schema)).toBe(
      [
        '{',
        "  basis: 'total' | 'it\\'s';",
        '  /** DKK */',
        '  price: number | null;',
        '  tags: (string | number)[];',
        '  rates: Record<string, number>;',
        '  "odd-name"?: boolean;',
        '}',
      ].join('\n'),
    );
  });
});
