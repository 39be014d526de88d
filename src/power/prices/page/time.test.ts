import { describe, expect, it } from 'vitest';
import { hoursOf, quartersOf } from '../../../../test/support/danish-days.js';
import fc from 'fast-check';
import { HOUR, danishClock, danishOffset, hourAt, hourTicks, labeller, nextDate } from './time.js';

describe('Danish days and hours on the page', () => {
  it('steps to the next calendar day across months, years and a leap day', () => {
    expect(['2025-10-25', '2025-12-31', '2028-02-28', '2028-02-29', '2026-03-28'].map(nextDate)).toEqual([
      '2025-10-26',
      '2026-01-01',
      '2028-02-29',
      '2028-03-01',
      '2026-03-29',
    ]);
  });

  it('labels the two 02:00 hours of the 25-hour autumn day by their offsets, every other hour by its clock', () => {
    const hours = hoursOf('2025-10-26');
    expect(hours).toHaveLength(25);
    const labels = hours.map(labeller(hours));
    expect(labels.slice(0, 5)).toEqual(['00:00', '01:00', '02:00 +02:00', '02:00 +01:00', '03:00']);
    expect(new Set(labels).size).toBe(25);
    const quarters = quartersOf('2025-10-26');
    expect(quarters.map(labeller(quarters)).filter((l) => l.startsWith('02:15'))).toEqual([
      '02:15 +02:00',
      '02:15 +01:00',
    ]);
  });

  it('labels the 23-hour spring day without a 02:00', () => {
    const hours = hoursOf('2026-03-29');
    expect(hours).toHaveLength(23);
    expect(hours.map(labeller(hours)).slice(0, 3)).toEqual(['00:00', '01:00', '03:00']);
  });

  it('ticks every third or sixth wall-clock hour once, on 23-, 24- and 25-hour days', () => {
    const every3 = ['00', '03', '06', '09', '12', '15', '18', '21'];
    for (const date of ['2026-03-29', '2026-03-28', '2025-10-26'])
      expect(hourTicks(hoursOf(date), 3).map((t) => t.label)).toEqual(every3);
    expect(hourTicks(hoursOf('2025-10-26'), 6).map((t) => t.label)).toEqual(['00', '06', '12', '18']);
    // on the autumn day 03:00 comes two hours of instants after 01:00
    const autumn = hourTicks(hoursOf('2025-10-26'), 3);
    expect(autumn[1]!.at - autumn[0]!.at).toBe(4 * HOUR);
  });

  it('finds the hour that holds an instant, and none outside the day', () => {
    const hours = hoursOf('2025-10-26');
    // 01:30 UTC is the second 02:00 hour (+01:00)
    expect(hours[hourAt(hours, Date.parse('2025-10-26T01:30:00Z'))]!.time_dk).toBe(
      '2025-10-26T02:00:00+01:00',
    );
    expect(hourAt(hours, hours[0]!.start)).toBe(0);
    expect(hourAt(hours, hours[0]!.start - 1)).toBe(-1);
    expect(hourAt(hours, hours[24]!.start + HOUR)).toBe(-1);
  });

  it("tells Denmark's wall clock of an instant, across both clock changes, as Intl does", () => {
    expect(danishClock(Date.parse('2026-03-28T12:00:00Z'))).toBe('13:00:00');
    // spring: 01:59:59 winter time is followed by 03:00:00 summer time
    expect(danishClock(Date.parse('2026-03-29T00:59:59Z'))).toBe('01:59:59');
    expect(danishClock(Date.parse('2026-03-29T01:00:00Z'))).toBe('03:00:00');
    // autumn: 02:59:59 summer time is followed by 02:00:00 winter time
    expect(danishClock(Date.parse('2025-10-26T00:59:59Z'), '.')).toBe('02.59.59');
    expect(danishClock(Date.parse('2025-10-26T01:00:00Z'), '.')).toBe('02.00.00');
    expect(danishOffset(Date.parse('2025-10-26T01:00:00Z'))).toBe(60);
    const intl = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Copenhagen',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1996, 0, 1), max: Date.UTC(2100, 0, 1) }), (t) => {
        expect(danishClock(t)).toBe(intl.format(t));
      }),
      { numRuns: 5000 },
    );
    // every change of the clock from 1996 to 2099, to the second on both sides
    for (let year = 1996; year < 2100; year++)
      for (const month of [2, 9]) {
        const lastDay = new Date(Date.UTC(year, month + 1, 0));
        const change = Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay(), 1);
        for (const t of [change - 1000, change])
          expect(danishClock(t), new Date(t).toISOString()).toBe(intl.format(t));
      }
  });
});
