import { DateTime } from 'luxon';
import { DANISH_ZONE } from '../../shared/danish-time.js';
import type { WindowSetting } from './entities.js';

const QUARTER_MS = 900_000;

export interface Found {
  start: number;
  end: number;
  average: number;
}

export interface Tracked extends Found {
  /** The instant the window had to end by. */
  deadline: number;
}

/** The first Danish instant at `hour`:00 at or after `t` (a skipped hour is the next one that exists). */
export function firstHourFrom(t: number, hour: number): number {
  for (
    let day = DateTime.fromMillis(t, { zone: DANISH_ZONE }).startOf('day');
    ;
    day = day.plus({ days: 1 })
  ) {
    const at = day.set({ hour }).toMillis();
    if (at >= t) return at;
  }
}

/**
 * One window per deadline: the run of `minutes` searched from now to the first `endHour`:00 it
 * fits before. Until it begins it is searched again every time (tomorrow's prices may come);
 * once begun it is kept to its end, so that the sensors do not move under a running charge.
 * After it, the next window is for a later deadline, never a second one for the same; a new
 * length or hour is searched again from now.
 */
export class WindowTracker {
  private current: Tracked | null = null;
  private setting: WindowSetting | null = null;
  private served = -Infinity;
  private lastNow = -Infinity;

  async next(
    now: number,
    setting: WindowSetting,
    search: (after: number, before: number) => Promise<Found | null>,
  ): Promise<Tracked | null> {
    // A clock set back (a test's, a fixed wrong time) forgets what was found for later instants.
    if (now < this.lastNow) [this.current, this.served] = [null, -Infinity];
    this.lastNow = now;
    const same = this.setting?.minutes === setting.minutes && this.setting.endHour === setting.endHour;
    this.setting = setting;
    const c = this.current;
    if (same && c && c.start <= now && now < c.end) return c;
    // A window run to its end served its deadline; one whose setting changed is searched again.
    if (same && c && c.start <= now) this.served = Math.max(this.served, c.deadline);
    const after = Math.max(now, this.served);
    const from = Math.ceil(after / QUARTER_MS) * QUARTER_MS;
    const deadline = firstHourFrom(from + setting.minutes * 60_000, setting.endHour);
    const found = await search(after, deadline);
    this.current = found && { ...found, deadline };
    return this.current;
  }
}

/** Whether `now` lies in the window. */
export const inside = (w: Found | null, now: number): boolean => w !== null && w.start <= now && now < w.end;
