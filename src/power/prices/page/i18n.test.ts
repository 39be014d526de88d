import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber, formatsFor } from './format.js';
import { MESSAGES, pickLanguage, staticText } from './i18n.js';

describe('the page in Danish and English', () => {
  it('speaks Danish unless the browser prefers English first, and a remembered choice wins', () => {
    expect(pickLanguage(null, [])).toBe('da');
    expect(pickLanguage(null, ['da-DK', 'en-US'])).toBe('da');
    expect(pickLanguage(null, ['en-US', 'da'])).toBe('en');
    expect(pickLanguage(null, ['EN-gb'])).toBe('en');
    // a German reader who also reads English gets English; one who reads neither, Danish
    expect(pickLanguage(null, ['de-DE', 'en'])).toBe('en');
    expect(pickLanguage(null, ['de-DE', 'fr'])).toBe('da');
    expect(pickLanguage('da', ['en-US'])).toBe('da');
    expect(pickLanguage('en', ['da-DK'])).toBe('en');
    expect(pickLanguage('xx', ['da-DK'])).toBe('da');
  });

  it('has every message in both languages, of the same kind', () => {
    const kinds = (m: object) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Array.isArray(v) ? v.length : typeof v]));
    expect(kinds(MESSAGES.en)).toEqual(kinds(MESSAGES.da));
    expect(Object.keys(MESSAGES.en.parts)).toEqual(Object.keys(MESSAGES.da.parts));
    expect(staticText('da', 'heading')).toBe('Elpriser');
    expect(staticText('en', 'heading')).toBe('Electricity prices');
    expect(staticText('da', 'updated')).toBeNull();
    expect(staticText('da', 'nonexistent')).toBeNull();
  });

  it('writes numbers exactly as Intl.NumberFormat does in da-DK and en-GB', () => {
    const intl = {
      da: (d: number) =>
        new Intl.NumberFormat('da-DK', { minimumFractionDigits: d, maximumFractionDigits: d }),
      en: (d: number) =>
        new Intl.NumberFormat('en-GB', { minimumFractionDigits: d, maximumFractionDigits: d }),
    };
    const cases: [number, number][] = [
      [1234.565, 2],
      [1.005, 2],
      [2.675, 2],
      [-0.004, 2],
      [-0, 2],
      [0, 0],
      [-50, 0],
      [1234567.891, 2],
      [5e-7, 2],
      [0.5, 0],
      [-2.5, 0],
      [999.995, 2],
    ];
    for (const [v, d] of cases)
      for (const lang of ['da', 'en'] as const)
        expect(formatNumber(v, d, lang), `${v}`).toBe(intl[lang](d).format(v));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: -1e7, max: 1e7, noNaN: true }),
          fc.integer({ min: -100000, max: 100000 }).map((i) => i / 1000),
        ),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('da' as const, 'en' as const),
        (v, d, lang) => {
          expect(formatNumber(v, d, lang)).toBe(intl[lang](d).format(v));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('writes prices, unknown prices, axis values and days in each language', () => {
    const da = formatsFor('da');
    const en = formatsFor('en');
    expect([da.price(1234.5), da.price(null), da.tick(-50, 0), da.tick(0.5, 1)]).toEqual([
      '1.234,50',
      '–',
      '-50',
      '0,5',
    ]);
    expect([en.price(1234.5), en.tick(0.5, 1)]).toEqual(['1,234.50', '0.5']);
    expect(da.day('2026-03-28')).toBe('lørdag 28. marts 2026');
    expect(en.day('2025-10-26')).toBe('Sunday 26 October 2025');
  });

  it('tells the time of day in Denmark whatever the zone of the browser', () => {
    // 12:00 UTC is 13:00 in Danish winter time and 14:00 in summer time
    expect(formatsFor('da').time(Date.parse('2026-03-28T12:00:00Z'))).toBe('13.00.00');
    expect(formatsFor('en').time(Date.parse('2026-03-29T12:00:00Z'))).toBe('14:00:00');
  });
});
