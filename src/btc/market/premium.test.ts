import { describe, expect, it } from 'vitest';
import { NO_PREMIUM, premiumOf } from './premium.js';

const quote = { total_eur: '55', pre_fee_eur: '54.45', quote_sats: 90_750 };

describe('premiumOf', () => {
  it('is exact: 54.45 EUR for 0.0009075 BTC is 60000 EUR/BTC, the fee included 60606.06…', () => {
    // 54.45 / 0.0009075 = 60000; 55 / 0.0009075 = 60606.0606…
    expect(premiumOf(quote, '60000')).toEqual({
      spot_eur: '60000',
      spread_pct: '0.000000',
      all_in_pct: '1.010101',
    });
    expect(premiumOf(quote, '50000')).toEqual({
      spot_eur: '50000',
      spread_pct: '20.000000',
      all_in_pct: '21.212121',
    });
    expect(premiumOf(quote, '80000').spread_pct).toBe('-25.000000');
  });

  it('has no premium without a spot price or without sats, rather than a wrong one', () => {
    expect(premiumOf(quote, null)).toEqual(NO_PREMIUM);
    expect(premiumOf({ ...quote, quote_sats: 0 }, '60000')).toEqual(NO_PREMIUM);
    expect(premiumOf(quote, '0')).toEqual(NO_PREMIUM);
  });
});
