import { DateTime } from 'luxon';

export const DANISH_ZONE = 'Europe/Copenhagen';
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date in the form YYYY-MM-DD (2025-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  return DATE_RE.test(text) && DateTime.fromISO(text, { zone: 'UTC' }).isValid;
}

/** The Danish calendar date of an instant. */
export function danishDate(instant: Date): string {
  return DateTime.fromJSDate(instant, { zone: DANISH_ZONE }).toISODate()!;
}

/**
 * Calendar arithmetic on a YYYY-MM-DD date, in plain UTC date fields: a day is a calendar day,
 * whatever the zone. Cheaper than a Luxon round trip, which matters where a year of days is
 * walked per request (the costs).
 */
export function addDays(date: string, days: number): string {
  const t = new Date(0);
  t.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)) + days);
  return t.toISOString().split('T')[0]!;
}

/** The instant with the Danish offset of that instant: 2025-10-26T02:00:00+01:00. */
export function toDanishIso(instant: Date): string {
  return DateTime.fromJSDate(instant, { zone: DANISH_ZONE }).toISO({ suppressMilliseconds: true })!;
}

/** Half-open UTC interval [start, end) of a Danish calendar day; 23, 24 or 25 hours long. */
export function danishDayBounds(date: string): { start: Date; end: Date } {
  const start = DateTime.fromISO(date, { zone: DANISH_ZONE }).startOf('day');
  return { start: start.toJSDate(), end: start.plus({ days: 1 }).toJSDate() };
}

/** The UTC instants that start each step (in minutes) of a Danish day: 23/24/25 hours, 92/96/100 quarters. */
export function danishDaySteps(date: string, stepMinutes: 15 | 60): Date[] {
  const { start, end } = danishDayBounds(date);
  const out: Date[] = [];
  for (let t = start.getTime(); t < end.getTime(); t += stepMinutes * 60_000) out.push(new Date(t));
  return out;
}

/** Wall-clock hour (0–23) in Denmark; both 02:00 hours of the autumn change give 2. */
export function danishHour(instant: Date): number {
  return DateTime.fromJSDate(instant, { zone: DANISH_ZONE }).hour;
}
