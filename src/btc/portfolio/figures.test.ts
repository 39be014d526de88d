import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atFault, dayCloseInstant, portfolioFigures, type Holdings, type Price } from './figures.js';

const wallet = (id: number, sats: string) => ({
  id,
  name: `w${id}`,
  wallet_type: 'wallet' as const,
  sats,
});

function holdings(cost: [string, string, string], bought: string, fees: string, sats: string[]): Holdings {
  return {
    totals: {
      bought_sats: bought,
      fee_sats: fees,
      cost: { eur: cost[0], dkk: cost[1], usd: cost[2] },
      unconverted: null,
    },
    wallets: sats.map((s, i) => wallet(i + 1, s)),
  };
}

const AT = new Date('2026-07-03T10:00:00Z');

describe('atFault', () => {
  const today = '2026-07-03';
  it.each([
    ['0000-01-01', /before the first bitcoin block/],
    ['2009-01-02', /before the first bitcoin block/],
    ['9999-12-31', /in the future \(today in Denmark is 2026-07-03\)/],
    ['2026-07-04', /in the future/],
    ['2025-02-29', /not a calendar date/],
    ['2026-04-31', /not a calendar date/],
    ['2026-13-01', /not a calendar date/],
    ['2026-7-1', /not a calendar date/],
    ['+02026-07-01', /not a calendar date/],
  ])('refuses %s, naming querystring.at', (at, why) => {
    const v = atFault(at, today);
    expect(v).toMatch(/^querystring\.at: /);
    expect(v).toMatch(why);
  });

  it.each([['2009-01-03'], ['2024-02-29'], ['2026-07-03']])('accepts %s', (at) => {
    expect(atFault(at, today)).toBeNull();
  });
});

describe('dayCloseInstant', () => {
  it('is the end of the UTC day, whatever the process time zone', () => {
    expect(dayCloseInstant('2025-10-26').toISOString()).toBe('2025-10-27T00:00:00.000Z');
    expect(dayCloseInstant('2024-12-31').toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });
});

describe('portfolioFigures', () => {
  it('rounds the exact sums once, half-up, and answers cents as strings', () => {
    const h = holdings(['10.005', '74.6149999999999999', '0.004999'], '1000', '0', ['1000']);
    const p = portfolioFigures(h, null, AT);
    expect(p.cost).toEqual({ eur: '10.01', dkk: '74.61', usd: '0.00' });
    // 10.005 EUR for 0.00001 BTC: exact cost divided, not the rounded one.
    expect(p.average_price).toEqual({ eur: '1000500.00', dkk: '7461500.00', usd: '499.90' });
    expect(p).toMatchObject({ price: null, value: null, unrealized_pnl: null, as_of: AT.toISOString() });
    expect(p.wallets[0]!.value).toBeNull();
  });

  it('has no average price before the first buy', () => {
    const p = portfolioFigures(holdings(['0', '0', '0'], '0', '0', ['0']), null, AT);
    expect(p.average_price).toBeNull();
    expect(p.cost).toEqual({ eur: '0.00', dkk: '0.00', usd: '0.00' });
  });

  it('values sats at the exact price, rounding a half cent up', () => {
    // 50,000 sats at 10 per BTC is 0.005.
    const price: Price = { btc_eur: '10', btc_usd: '9.999999999', btc_dkk: '30.0000001' };
    const p = portfolioFigures(holdings(['0', '0', '0'], '50000', '0', ['50000']), price, AT);
    expect(p.value).toEqual({ eur: '0.01', usd: '0.00', dkk: '0.02' });
    expect(p.price).toEqual({ btc_eur: '10.00', btc_usd: '10.00', btc_dkk: '30.00' });
  });

  it('leaves a side null when only that side of the price is unknown', () => {
    const price: Price = { btc_eur: null, btc_usd: '65000', btc_dkk: null };
    const p = portfolioFigures(holdings(['1', '7', '1.1'], '100', '0', ['100']), price, AT);
    expect(p.value).toEqual({ eur: null, dkk: null, usd: '0.07' });
    expect(p.unrealized_pnl).toEqual({ eur: null, dkk: null, usd: '-1.03' });
  });

  it('treats a price with neither EUR nor USD as no price', () => {
    const p = portfolioFigures(
      holdings(['1', '7', '1.1'], '100', '0', ['100']),
      { btc_eur: null, btc_usd: null, btc_dkk: null },
      AT,
    );
    expect(p.price).toBeNull();
    expect(p.value).toBeNull();
  });

  it('keeps value − cost = unrealized_pnl exact for any exact sums and prices', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }))
      .map(([n, dp]) => {
        const s = n.toString().padStart(dp + 1, '0');
        return dp === 0 ? s : `${s.slice(0, -dp)}.${s.slice(-dp)}`;
      });
    const sats = fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }).map(String);
    fc.assert(
      fc.property(
        fc.tuple(decimal, decimal, decimal),
        fc.array(sats, { minLength: 1, maxLength: 7 }),
        fc.tuple(decimal, decimal, decimal),
        (cost, balances, [eur, usd, dkk]) => {
          const p = portfolioFigures(
            holdings(cost, '1', '0', balances),
            { btc_eur: eur, btc_usd: usd, btc_dkk: dkk },
            AT,
          );
          for (const k of ['eur', 'dkk', 'usd'] as const) {
            const [v, c, pnl] = [p.value![k]!, p.cost[k], p.unrealized_pnl![k]!];
            expect(v).toMatch(/^\d+\.\d\d$/);
            expect(pnl).toMatch(/^-?\d+\.\d\d$/);
            // In integer cents, so the check itself cannot round.
            const toCents = (x: string) => BigInt(x.replace('.', ''));
            expect(toCents(v) - toCents(c)).toBe(toCents(pnl));
          }
        },
      ),
    );
  });
});
