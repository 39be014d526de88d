// @ts-check
import { HOUR, clockOf, danishClock } from './time.js';

/**
 * @typedef {object} Window the cheapest run of whole hours of a day
 * @property {number} start its first hour's instant
 * @property {number} end the instant after its last hour
 * @property {string} from Danish wall clock of `start`, "HH:MM"
 * @property {string} to Danish wall clock of `end`
 * @property {number} average mean price, øre/kWh
 * @property {'spot' | 'total'} basis the price the hours were ranked on
 */

/**
 * The cheapest `size` consecutive hours by `value`, the rule /api/cheapest ranks the all-in price
 * by, applied to the price the view shows: a run never bridges a gap in the hours or an unknown
 * value, and the earliest of equal runs wins. Null when no run of `size` hours exists.
 * @template {{ time_dk: string, start: number }} H
 * @param {readonly H[]} hours in order
 * @param {number} size
 * @param {(hour: H) => number | null} value
 * @param {'spot' | 'total'} basis
 * @returns {Window | null}
 */
export function cheapestRun(hours, size, value, basis) {
  /** @type {{ at: number, sum: number } | null} */
  let best = null;
  for (let i = 0; i + size <= hours.length; i++) {
    let sum = 0;
    let ok = true;
    for (let j = i; j < i + size && ok; j++) {
      const h = /** @type {H} */ (hours[j]);
      const v = value(h);
      ok = v !== null && (j === i || h.start === /** @type {H} */ (hours[j - 1]).start + HOUR);
      sum += v ?? 0;
    }
    if (ok && (best === null || sum < best.sum)) best = { at: i, sum };
  }
  if (best === null) return null;
  const first = /** @type {H} */ (hours[best.at]);
  const end = first.start + size * HOUR;
  return {
    start: first.start,
    end,
    from: clockOf(first.time_dk),
    to: danishClock(end).slice(0, 5),
    average: best.sum / size,
    basis,
  };
}

/**
 * The window /api/cheapest found, in the page's terms.
 * @param {import('./data.js').CheapestAnswer} w
 * @returns {Window}
 */
export function fromApi(w) {
  return {
    start: Date.parse(w.start_dk),
    end: Date.parse(w.end_dk),
    from: clockOf(w.start_dk),
    to: clockOf(w.end_dk),
    average: w.average_dkk_kwh * 100,
    basis: w.basis,
  };
}

/** Whether the hour starting at `t` lies in the window. */
export const inWindow = (/** @type {Window | null} */ w, /** @type {number} */ t) =>
  w !== null && t >= w.start && t < w.end;
