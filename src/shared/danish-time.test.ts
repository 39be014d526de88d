import { DateTime } from 'luxon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  danishDate,
  danishDayBounds,
  danishDaySteps,
  danishHour,
  isCalendarDate,
  toDanishIso,
} from './danish-time.js';

describe('Danish calendar days', () => {
  it.each([
    ['2024-03-31', 23],
    ['2024-10-27', 25],
    ['2025-03-30', 23],
    ['2025-10-26', 25],
    ['2026-03-29', 23],
    ['2026-10-25', 25],
    ['2026-07-03', 24],
    ['2026-01-15', 24],
  ])('%s has %i hours and 4 quarters per hour', (date, hours) => {
    expect(danishDaySteps(date, 60)).toHaveLength(hours);
    expect(danishDaySteps(date, 15)).toHaveLength(hours * 4);
  });

  it('bounds a summer day at 22:00 UTC and a winter day at 23:00 UTC', () => {
    expect(danishDayBounds('2026-07-03').start.toISOString()).toBe('2026-07-02T22:00:00.000Z');
    expect(danishDayBounds('2026-01-15').start.toISOString()).toBe('2026-01-14T23:00:00.000Z');
    expect(danishDayBounds('2025-10-26').end.toISOString()).toBe('2025-10-26T23:00:00.000Z');
  });

  it('gives the two 02:00 hours of the autumn change distinct offsets and the same wall hour', () => {
    const [h0, h1, h2, h3] = danishDaySteps('2025-10-26', 60);
    expect([h0, h1, h2, h3].map((h) => toDanishIso(h!))).toEqual([
      '2025-10-26T00:00:00+02:00',
      '2025-10-26T01:00:00+02:00',
      '2025-10-26T02:00:00+02:00',
      '2025-10-26T02:00:00+01:00',
    ]);
    expect(danishHour(h2!)).toBe(2);
    expect(danishHour(h3!)).toBe(2);
  });

  it('skips 02:00 on the spring change', () => {
    const hours = danishDaySteps('2025-03-30', 60).map(danishHour);
    expect(hours).not.toContain(2);
    expect(hours.slice(0, 3)).toEqual([0, 1, 3]);
  });

  it('maps instants to the Danish date, not the UTC date', () => {
    expect(danishDate(new Date('2026-07-02T22:30:00Z'))).toBe('2026-07-03');
    expect(danishDate(new Date('2026-01-14T22:59:59Z'))).toBe('2026-01-14');
  });

  it('accepts only real calendar dates', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2025-02-29')).toBe(false);
    expect(isCalendarDate('2025-13-01')).toBe(false);
    expect(isCalendarDate('2025-1-01')).toBe(false);
    expect(isCalendarDate('20250101')).toBe(false);
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
  });
});

describe('time zones: Danish days do not depend on the zone the process runs in', () => {
  it.each([
    ['2026-07-02T21:59:59Z', '2026-07-02'],
    ['2026-07-02T22:00:00Z', '2026-07-03'],
    ['2026-07-03T21:59:59Z', '2026-07-03'],
    ['2026-01-14T23:00:00Z', '2026-01-15'],
    ['2025-10-26T00:59:59Z', '2025-10-26'],
    ['2026-03-28T23:00:00Z', '2026-03-29'],
  ])('the instant %s falls on the Danish day %s', (instant, day) => {
    expect(danishDate(new Date(instant))).toBe(day);
    const { start, end } = danishDayBounds(day);
    expect(start.getTime() <= Date.parse(instant) && Date.parse(instant) < end.getTime()).toBe(true);
  });

  it('counts days on the calendar, not in local hours, across both changes', () => {
    expect(addDays('2026-03-28', 1)).toBe('2026-03-29');
    expect(addDays('2026-03-29', 1)).toBe('2026-03-30');
    expect(addDays('2025-10-26', -1)).toBe('2025-10-25');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });

  it('adds days as Luxon does, for any date from 1000 to 9998 and any step within a few years', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('9998-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -1500, max: 1500 }),
        (instant, days) => {
          const date = instant.toISOString().slice(0, 10);
          const luxon = DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate();
          expect(addDays(date, days)).toBe(luxon);
        },
      ),
    );
  });
});
