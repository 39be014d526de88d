// @ts-check
// A day's hours ranked against each other: the cheapest quarter of the day is "low", the
// dearest quarter "high", the rest "mid"; the legend says the same words.

/** @typedef {'low' | 'mid' | 'high'} Level */
/** @typedef {{ low: number, high: number }} Thresholds */

/**
 * The values at the first and third quartile of the day's known values, or null when none is
 * known or all are alike (then no hour is cheaper or dearer than another).
 * @param {readonly (number | null)[]} values
 * @returns {Thresholds | null}
 */
export function thresholds(values) {
  const known = /** @type {number[]} */ (values.filter((v) => v !== null)).sort((a, b) => a - b);
  if (known.length === 0) return null;
  const low = /** @type {number} */ (known[Math.floor(known.length / 4)]);
  const high = /** @type {number} */ (known[Math.floor((known.length * 3) / 4)]);
  return low === high ? null : { low, high };
}

/**
 * @param {number | null} value
 * @param {Thresholds | null} t
 * @returns {Level | null} null for an unknown value
 */
export function levelOf(value, t) {
  if (value === null) return null;
  if (t === null) return 'mid';
  return value <= t.low ? 'low' : value >= t.high ? 'high' : 'mid';
}
