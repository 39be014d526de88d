import { describe, expect, it } from 'vitest';
import { WindowTracker, firstHourFrom, inside, type Found } from './tracker.js';

const t = (iso: string) => Date.parse(iso);

describe('the first Danish hour at or after an instant', () => {
  it('is today when still to come, else tomorrow; a skipped 02:00 is 03:00', () => {
    expect(firstHourFrom(t('2026-07-03T10:00:00Z'), 7)).toBe(t('2026-07-04T07:00:00+02:00'));
    expect(firstHourFrom(t('2026-07-03T04:00:00Z'), 7)).toBe(t('2026-07-03T07:00:00+02:00'));
    expect(firstHourFrom(t('2026-03-28T22:00:00Z'), 2)).toBe(t('2026-03-29T03:00:00+02:00'));
  });
});

describe('a tracked window', () => {
  const setting = { minutes: 60, endHour: 7 };
  const asked: [string, string][] = [];
  const search =
    (start: string) =>
    async (after: number, before: number): Promise<Found> => {
      asked.push([new Date(after).toISOString(), new Date(before).toISOString()]);
      return { start: t(start), end: t(start) + 3_600_000, average: 1 };
    };

  it('is searched up to the hour it must end by, kept while it runs, and followed by one for the next deadline', async () => {
    const w = new WindowTracker();
    const first = await w.next(t('2026-07-03T10:07:30Z'), setting, search('2026-07-04T01:00:00Z'));
    expect(asked.at(-1)).toEqual(['2026-07-03T10:07:30.000Z', '2026-07-04T05:00:00.000Z']);
    expect(inside(first, t('2026-07-04T00:59:59Z'))).toBe(false);
    // running: not searched again, even if a search would now find another
    const n = asked.length;
    expect(await w.next(t('2026-07-04T01:30:00Z'), setting, search('2026-07-04T03:00:00Z'))).toBe(first);
    expect(asked).toHaveLength(n);
    expect(inside(first, t('2026-07-04T01:30:00Z'))).toBe(true);
    // over: the next is searched from 07:00 on, for 07:00 the day after
    await w.next(t('2026-07-04T02:00:00Z'), setting, search('2026-07-05T01:00:00Z'));
    expect(asked.at(-1)).toEqual(['2026-07-04T05:00:00.000Z', '2026-07-05T05:00:00.000Z']);
  });

  it('is searched again at once when its length changes, and needs room before the hour', async () => {
    const w = new WindowTracker();
    await w.next(t('2026-07-04T01:30:00Z'), setting, search('2026-07-04T01:15:00Z'));
    await w.next(t('2026-07-04T01:45:00Z'), { minutes: 240, endHour: 7 }, search('2026-07-04T20:00:00Z'));
    // 03:45 + 4 h is past 07:00: the next 07:00
    expect(asked.at(-1)).toEqual(['2026-07-04T01:45:00.000Z', '2026-07-05T05:00:00.000Z']);
  });
});

describe('a number set through its command topic', () => {
  it('takes 15 to 720 minutes in steps of 15, as HA sends them', async () => {
    const { numberOf } = await import('./control.js');
    const { WINDOW_ENTITIES } = await import('./entities.js');
    const e = WINDOW_ENTITIES.cheapest.minutes;
    expect(numberOf(e, '60')).toBe(60);
    expect(numberOf(e, '60.0')).toBe(60);
    expect(numberOf(e, '61')).toMatch(/15 to 720 in steps of 15/);
    expect(numberOf(e, '735')).toMatch(/not 15 to 720/);
    expect(numberOf(e, 'abc')).toMatch(/is not a number/);
    expect(numberOf(e, '')).toMatch(/is not a number/);
    expect(numberOf(WINDOW_ENTITIES.greenest.endHour, '23')).toBe(23);
  });
});
