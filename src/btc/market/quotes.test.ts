import { Big } from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preFeeAmount, satsOf } from './quotes.js';

const money = (amount: string, currency: string) => ({ amount, currency });
const quote = (target: string) => ({
  id: 'q',
  source: money('54.45', 'EUR'),
  target: money(target, 'BTC'),
  fee: money('0.55', 'EUR'),
  created: null,
  validUntil: null,
});

describe('quote arithmetic', () => {
  it('pre-fee = total − fee, exactly, to the cent', () => {
    expect(preFeeAmount('55', '0.55')).toBe('54.45');
    expect(preFeeAmount('55.1', '0.3')).toBe('54.80');
    // 0.1 + 0.2 style float errors would show here
    expect(preFeeAmount('0.3', '0.1')).toBe('0.20');
    expect(() => preFeeAmount('1', '1')).toThrow(/not below the total/);
  });

  it('never quotes more than the total when the fee has sub-cent digits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 0, max: 9_999 }),
        (cents, fee4) => {
          const total = new Big(cents).div(100).toFixed(2);
          const fee = new Big(fee4).div(10_000).toFixed(4);
          fc.pre(new Big(fee).lt(total));
          const pre = preFeeAmount(total, fee);
          expect(new Big(pre).plus(fee).lte(total)).toBe(true);
          expect(new Big(total).minus(fee).minus(pre).lt('0.01')).toBe(true);
        },
      ),
    );
  });

  it('sats = target BTC × 1e8 as an exact integer', () => {
    expect(satsOf(quote('0.00059895'))).toBe(59_895);
    expect(satsOf(quote('0.00000001'))).toBe(1);
    expect(satsOf(quote('21000000.00000000'))).toBe(2_100_000_000_000_000);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (sats) => {
        const btc = `${sats / 100_000_000n}.${String(sats % 100_000_000n).padStart(8, '0')}`;
        expect(satsOf(quote(btc))).toBe(Number(sats));
      }),
    );
  });

  it('refuses a quote that does not buy BTC', () => {
    expect(() => satsOf({ ...quote('1'), target: money('1', 'USD') })).toThrow(/not BTC/);
  });
});
