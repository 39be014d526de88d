// Days as the API writes them, for the home page's unit tests: every hour of a Danish day (23, 24 or
// 25) with its offset, from the same Danish-time rules the server uses.
import { danishDaySteps, toDanishIso } from '../../src/shared/danish-time.js';

export interface TestHour {
  time_dk: string;
  start: number;
}

export function hoursOf(date: string): TestHour[] {
  return danishDaySteps(date, 60).map((t) => ({ time_dk: toDanishIso(t), start: t.getTime() }));
}

export function quartersOf(date: string): TestHour[] {
  return danishDaySteps(date, 15).map((t) => ({ time_dk: toDanishIso(t), start: t.getTime() }));
}
