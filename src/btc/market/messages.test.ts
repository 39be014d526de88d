import { Big } from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonSnakeKeys } from '../../../test/support/snake-case.js';
import { btcStates } from '../../mqtt/states.js';
import { priceMessage, quoteMessage } from './messages.js';
import { composePrice } from './btc-price.js';

const AT = new Date('2026-07-03T10:00:00Z');
const RATES = { date: '2026-07-03', rates_date: '2026-07-03', usd_eur: '0.923456', usd_dkk: '6.889123' };

/** A stored row as the spot feed composes it: BTC/DKK the exact product, not rounded. */
const stored = (btcEur: string, eurDkk: string) =>
  composePrice({ price: '65000.5', at: AT }, { price: btcEur, at: AT }, { ...RATES, eur_dkk: eurDkk });

/** The text JSON gives a field of a message: what a client of the API, a stream or MQTT reads. */
const jsonText = (message: object, field: string) =>
  new RegExp(`"${field}":([^,}]*)`).exec(JSON.stringify(message))?.[1];

describe('the price message', () => {
  it('carries BTC/DKK to the cent where floating point would add noise', () => {
    // 60000.1 × 7.460512 = 447631.4660512 exactly, 447631.46605119994 in floating point
    expect(60000.1 * 7.460512).toBe(447631.46605119994);
    const row = stored('60000.1', '7.460512');
    expect(row.btc_dkk).toBe('447631.4660512');
    const message = priceMessage(row);
    expect(jsonText(message, 'btc_dkk')).toBe('447631.47');
    // MQTT's state is made from the same message
    expect(btcStates(message).dkk).toBe('447631.47');
  });

  it('rounds half a cent up, and a price stored with more decimals than cents', () => {
    // 10000.01 × 7.45 = 74500.0745 → .07; 0.5 × 2.01 = 1.005 → 1.01, where the float 1.00499999… gives 1.00
    expect(priceMessage(stored('10000.01', '7.45')).btc_dkk).toBe(74500.07);
    expect((0.5 * 2.01).toFixed(2)).toBe('1.00');
    expect(priceMessage(stored('0.5', '2.01')).btc_dkk).toBe(1.01);
    const odd = priceMessage({ ...stored('60000.1', '7.46'), btc_usd: '65000.005', btc_eur: '0.1' });
    expect(odd.btc_usd).toBe(65000.01);
    expect(jsonText(odd, 'btc_eur')).toBe('0.1');
  });

  it('has no BTC/DKK until a rate is known, rather than a made-up one', () => {
    const row = composePrice({ price: '65000.5', at: AT }, { price: '60000.1', at: AT }, null);
    expect(priceMessage(row)).toMatchObject({ btc_dkk: null, rates: null });
  });

  it('prints every price per BTC as its exact cents, for any price and rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000_000 }),
        fc.integer({ min: 1, max: 99_999_999 }),
        (eurCents, rateMicros) => {
          const eur = new Big(eurCents).div(100).toFixed(2);
          const rate = new Big(rateMicros).div(1_000_000).toFixed(6);
          const message = priceMessage(stored(eur, rate));
          const exact = new Big(eur).times(rate).round(2, Big.roundHalfUp);
          const text = jsonText(message, 'btc_dkk')!;
          expect(text).toMatch(/^\d+(\.\d{1,2})?$/);
          expect(new Big(text).eq(exact)).toBe(true);
          expect(new Big(jsonText(message, 'btc_eur')!).eq(eur)).toBe(true);
        },
      ),
    );
  });
});

describe('the quote message', () => {
  const row = {
    at: AT,
    total_eur: '55',
    fee_eur: '0.55',
    pre_fee_eur: '54.45',
    quote_sats: 90_750,
    rates: [{ amount: '60000.1234', sourceCurrency: 'BTC', targetCurrency: 'EUR' }],
    spot_eur: '59000.123',
    spread_pct: '1.694706',
    all_in_pct: '2.710815',
  };

  it("answers the broker's ticker in snake_case, as stored in its own", () => {
    expect(quoteMessage(row).rates).toEqual([
      { amount: '60000.1234', source_currency: 'BTC', target_currency: 'EUR' },
    ]);
    // every key of both streams' messages, at any depth
    expect(nonSnakeKeys(quoteMessage(row))).toEqual([]);
    expect(nonSnakeKeys(priceMessage(stored('60000.1', '7.460512')))).toEqual([]);
  });

  it('carries the spot price to the cent and the amounts as stored', () => {
    expect(quoteMessage(row)).toMatchObject({
      total_eur: 55,
      fee_eur: 0.55,
      pre_fee_eur: 54.45,
      spot_eur: 59000.12,
      spread_pct: 1.694706,
    });
    expect(quoteMessage({ ...row, spot_eur: null }).spot_eur).toBeNull();
  });
});
