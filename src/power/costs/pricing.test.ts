import { Big } from 'big.js';
import { describe, expect, it } from 'vitest';
import { cheapestWindow, priceHour, type PricedHour } from './pricing.js';

const row = (iso: string, spotMwh: string, charges: (string | null)[] = ['0.043', '0.072', '0.008']) => ({
  time_dk: new Date(iso),
  price_dkk: spotMwh,
  tariff_dkk: '292.9',
  transmission_dkk_kwh: charges[0] ?? null,
  system_dkk_kwh: charges[1] ?? null,
  electricity_tax_dkk_kwh: charges[2] ?? null,
});
const pricing = { markup: '0.05', vatRate: '0.25' };
const hours = (spots: string[], start = '2026-01-15T00:00:00Z'): PricedHour[] =>
  spots.map((s, i) => priceHour(row(new Date(Date.parse(start) + i * 3_600_000).toISOString(), s), pricing));

describe('priceHour', () => {
  it('adds every part and VAT exactly, without float error', () => {
    const h = priceHour(row('2026-01-15T00:00:00Z', '100.1'), pricing);
    // 0.1001 + 0.2929 + 0.043 + 0.072 + 0.008 + 0.05 = 0.566; VAT 0.1415; total 0.7075
    expect([h.spot, h.grid_tariff, h.vat, h.total].map((v) => v!.toString())).toEqual([
      '0.1001',
      '0.2929',
      '0.1415',
      '0.7075',
    ]);
  });

  it('leaves VAT and total null when a charge is missing', () => {
    const h = priceHour(row('2026-01-15T00:00:00Z', '100', ['0.043', null, '0.008']), pricing);
    expect([h.system_tariff, h.vat, h.total]).toEqual([null, null, null]);
    expect(h.spot.toString()).toBe('0.1');
  });
});

describe('cheapestWindow', () => {
  it('takes the earliest of equally cheap windows', () => {
    const w = cheapestWindow(hours(['500', '100', '200', '500', '200', '100', '500']), 2)!;
    expect(w.start.toISOString()).toBe('2026-01-15T01:00:00.000Z');
    expect(w.end.toISOString()).toBe('2026-01-15T03:00:00.000Z');
    expect(w.basis).toBe('total');
  });

  it('never bridges a gap between stored hours', () => {
    const list = [...hours(['500', '100']), ...hours(['100', '500'], '2026-01-15T03:00:00Z')];
    const w = cheapestWindow(list, 2)!;
    expect(w.start.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(cheapestWindow(hours(['1', '2']), 3)).toBeNull();
  });

  it('ranks on spot for every hour when one hour lacks a charge, and says so', () => {
    const list = hours(['300', '100', '200']);
    list[2] = priceHour(row('2026-01-15T02:00:00Z', '200', [null, '0.072', '0.008']), pricing);
    const w = cheapestWindow(list, 1)!;
    expect(w.basis).toBe('spot');
    expect(w.average.eq(new Big('0.1'))).toBe(true);
  });
});
