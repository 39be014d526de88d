// @ts-check
// Danish days and hours as the API gives them: `time_dk` is ISO 8601 with the Danish offset of
// the instant, so its wall-clock text is read off the string and its instant is Date.parse of it;
// the browser's own time zone never enters.

export const HOUR = 3_600_000;

/** The calendar day after `date` (YYYY-MM-DD). */
export function nextDate(/** @type {string} */ date) {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString().slice(0, 10);
}

/** "13:00" of "2026-03-28T13:00:00+01:00". */
export const clockOf = (/** @type {string} */ timeDk) => timeDk.slice(11, 16);

/**
 * Labels of a day's hours or quarters: "02:00", and on the autumn change day, whose wall clock
 * shows 02:00–02:59 twice, "02:00 +02:00" and "02:00 +01:00" for the two.
 * @param {readonly { time_dk: string }[]} items
 * @returns {(item: { time_dk: string }) => string}
 */
export function labeller(items) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (const i of items) seen.set(clockOf(i.time_dk), (seen.get(clockOf(i.time_dk)) ?? 0) + 1);
  return (i) => {
    const hhmm = clockOf(i.time_dk);
    return (seen.get(hhmm) ?? 0) > 1 ? `${hhmm} ${i.time_dk.slice(19)}` : hhmm;
  };
}

/**
 * The axis labels of a day: every `every` wall-clock hours ("00", "03" … "21"), each at the
 * hour's instant. On the spring day 02:00 does not exist; on the autumn day 03:00 follows the
 * second 02:00, so each label appears once.
 * @param {readonly { time_dk: string, start: number }[]} hours
 * @param {number} every a divisor of 24
 * @returns {{ label: string, at: number }[]}
 */
export function hourTicks(hours, every) {
  return hours
    .filter((h) => Number(h.time_dk.slice(11, 13)) % every === 0 && h.time_dk.slice(14, 16) === '00')
    .map((h) => ({ label: h.time_dk.slice(11, 13), at: h.start }));
}

/**
 * The index of the hour that holds the instant `now`, or -1.
 * @param {readonly { start: number }[]} hours
 * @param {number} now
 */
export function hourAt(hours, now) {
  return hours.findIndex((h) => now >= h.start && now < h.start + HOUR);
}

/** 01:00 UTC on the last Sunday of a month (1–12) of a year: when Europe changes its clocks. */
function lastSundayAt1(/** @type {number} */ year, /** @type {number} */ month) {
  const last = new Date(Date.UTC(year, month, 0));
  return Date.UTC(year, month - 1, last.getUTCDate() - last.getUTCDay(), 1);
}

/**
 * Denmark's offset from UTC at an instant, in minutes: +02:00 from 01:00 UTC on the last Sunday
 * of March to 01:00 UTC on the last Sunday of October, +01:00 otherwise (the EU's rule since
 * 1996). Written out rather than asked of Intl.DateTimeFormat, whose first use with a time zone
 * loads its rules on the page's main thread.
 */
export function danishOffset(/** @type {number} */ instant) {
  const year = new Date(instant).getUTCFullYear();
  return instant >= lastSundayAt1(year, 3) && instant < lastSundayAt1(year, 10) ? 120 : 60;
}

/**
 * The Danish wall clock of an instant, "HH:MM:SS" with `separator` between the parts.
 * @param {number} instant
 * @param {string} [separator]
 */
export function danishClock(instant, separator = ':') {
  const wall = new Date(instant + danishOffset(instant) * 60_000);
  return [wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(separator);
}
