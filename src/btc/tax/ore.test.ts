import { Big } from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oreText, toOre } from './ore.js';

describe('øre', () => {
  it.each([
    ['0', 0n],
    ['7', 700n],
    ['7.', 700n],
    ['0.125', 13n],
    ['0.12499999', 12n],
    ['10.005', 1001n],
    ['70135.28', 7013528n],
    ['5395.749', 539575n],
    ['1e3', 100000n],
    ['.5', 50n],
  ])('reads %s as %s øre, half up', (text, ore) => {
    expect(toOre(text)).toBe(ore);
  });

  it.each([['-1'], ['1,5'], [''], [' 5'], ['abc']])('refuses %j', (text) => {
    expect(toOre(text)).toBeNull();
  });

  it('reads any plain decimal as big.js rounds it, and writes øre back as the same text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.nat({ max: 8 }), (units, decimals) => {
        const text = new Big(units.toString()).div(new Big(10).pow(decimals)).toFixed(decimals);
        const ore = BigInt(new Big(text).times(100).round(0, Big.roundHalfUp).toFixed(0));
        expect(toOre(text)).toBe(ore);
        expect(oreText(ore)).toBe(new Big(ore.toString()).div(100).toFixed(2));
      }),
    );
  });
});
