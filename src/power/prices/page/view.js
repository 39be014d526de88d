// @ts-check
// What a day shows in the chosen view, in that view's own terms: the price of each hour, the
// cheapest 3 hours ranked on that price, and the notices that qualify it.
import { cheapestRun } from './cheapest.js';

/** @typedef {import('./data.js').Day} Day */
/** @typedef {import('./data.js').Hour} Hour */
/** @typedef {import('./cheapest.js').Window} Window */
/** @typedef {'spot' | 'total'} Mode */

/**
 * The price a day is shown in: the chosen one, except that a day without any all-in price
 * (no grid company configured, no charges stored) is shown in spot prices.
 * @param {Day} day
 * @param {Mode} mode
 * @returns {Mode}
 */
export const basisOf = (day, mode) => (mode === 'total' && day.allIn !== 'none' ? 'total' : 'spot');

/** @returns {number | null} */
export const valueOf = (/** @type {Hour} */ hour, /** @type {Mode} */ basis) =>
  basis === 'spot' ? hour.spot : hour.total;

/**
 * The cheapest 3 hours in the shown price: /api/cheapest's window for the all-in price (the
 * server ranks on it, or on spot when a charge is missing, and says so), and the same rule over
 * the day's spot prices for the spot view.
 * @param {Day} day
 * @param {Mode} basis
 * @returns {Window | null}
 */
export const windowOf = (day, basis) =>
  basis === 'total' ? day.cheapestAllIn : cheapestRun(day.hours, 3, (h) => h.spot, 'spot');

/**
 * @typedef {{ key: 'incomplete', n: number, of: number }
 *   | { key: 'partsMissing' | 'needsGrid' | 'chargesMissing' }} Notice
 */

/**
 * @param {Day} day
 * @param {Mode} mode the chosen view
 * @returns {Notice[]}
 */
export function noticesOf(day, mode) {
  /** @type {Notice[]} */
  const out = [];
  if (!day.complete) out.push({ key: 'incomplete', n: day.hours.length, of: day.expected });
  if (mode === 'total' && day.hours.length > 0) {
    if (day.allIn === 'partial') out.push({ key: 'partsMissing' });
    else if (day.allIn === 'none') out.push({ key: day.gridMissing ? 'needsGrid' : 'chargesMissing' });
  }
  return out;
}

/**
 * The chart's steps of a day: quarter hours in the spot view where the day has them, hours
 * otherwise; a null value is a gap.
 * @param {Day} day
 * @param {Mode} basis
 * @returns {{ t: number, minutes: number, v: number | null }[]}
 */
export function stepsOf(day, basis) {
  if (basis === 'spot' && day.quarters.length > 0)
    return day.quarters.map((q) => ({ t: q.start, minutes: q.minutes, v: q.spot }));
  return day.hours.map((h) => ({ t: h.start, minutes: 60, v: valueOf(h, basis) }));
}
