import { describe, expect, it } from 'vitest';
import { hoursOf } from '../../../../test/support/danish-days.js';
import { cheapestRun, fromApi, inWindow } from './cheapest.js';
import { HOUR } from './time.js';

/** The hours of a day with the given prices, one per hour in order. */
function priced(date: string, prices: (number | null)[]) {
  return hoursOf(date)
    .slice(0, prices.length)
    .map((h, i) => ({ ...h, v: prices[i]! }));
}

describe('the cheapest 3 hours of the shown price', () => {
  it('finds the run with the lowest mean and says where it starts and ends on the clock', () => {
    const hours = priced('2026-03-28', [50, 40, 10, 20, 30, 60, 70]);
    const w = cheapestRun(hours, 3, (h) => h.v, 'spot')!;
    expect(w).toMatchObject({ from: '02:00', to: '05:00', average: 20, basis: 'spot' });
    expect(w.end - w.start).toBe(3 * HOUR);
    expect(hours.filter((h) => inWindow(w, h.start)).map((h) => h.v)).toEqual([10, 20, 30]);
  });

  it('takes the earliest of equally cheap runs', () => {
    const w = cheapestRun(priced('2026-03-28', [5, 5, 5, 9, 5, 5, 5]), 3, (h) => h.v, 'spot')!;
    expect(w.from).toBe('00:00');
  });

  it('never bridges an unknown price or a gap in the hours', () => {
    const withNull = priced('2026-03-28', [1, 1, null, 1, 9, 9, 9]);
    expect(cheapestRun(withNull, 3, (h) => h.v, 'total')!.from).toBe('03:00');
    const gap = priced('2026-03-28', [1, 1, 1, 50, 50, 50]).filter((_, i) => i !== 1);
    expect(cheapestRun(gap, 3, (h) => h.v, 'spot')!.from).toBe('02:00');
    expect(cheapestRun(priced('2026-03-28', [1, 1]), 3, (h) => h.v, 'spot')).toBeNull();
  });

  it('ends a run at the last hour of the day at 00:00, and spans the doubled 02:00 of the autumn day', () => {
    const end = priced(
      '2026-03-28',
      Array.from({ length: 24 }, (_, i) => (i >= 21 ? 1 : 50)),
    );
    expect(cheapestRun(end, 3, (h) => h.v, 'spot')).toMatchObject({ from: '21:00', to: '00:00' });
    const autumn = priced(
      '2025-10-26',
      Array.from({ length: 25 }, (_, i) => (i >= 2 && i <= 4 ? 1 : 50)),
    );
    // 02:00 +02:00, 02:00 +01:00, 03:00: three hours of instants, 02:00 to 04:00 on the clock
    const w = cheapestRun(autumn, 3, (h) => h.v, 'spot')!;
    expect(w).toMatchObject({ from: '02:00', to: '04:00' });
    expect(w.end - w.start).toBe(3 * HOUR);
  });

  it("reads /api/cheapest's window in øre/kWh and clock times", () => {
    const w = fromApi({
      start_dk: '2025-10-26T02:00:00+01:00',
      end_dk: '2025-10-26T05:00:00+01:00',
      average_dkk_kwh: 1.2345,
      basis: 'total',
    });
    expect(w).toMatchObject({ from: '02:00', to: '05:00', basis: 'total' });
    expect(w.average).toBeCloseTo(123.45, 10);
    expect(inWindow(w, Date.parse('2025-10-26T04:59:59+01:00'))).toBe(true);
    expect(inWindow(w, Date.parse('2025-10-26T05:00:00+01:00'))).toBe(false);
    expect(inWindow(null, w.start)).toBe(false);
  });
});
