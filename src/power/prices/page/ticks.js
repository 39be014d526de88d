// @ts-check
// Axis ticks a reader can count in: steps of 1, 2 or 5 times a power of ten.

/**
 * The smallest step of 1, 2 or 5 × 10^n that is at least `raw`.
 * @param {number} raw > 0
 */
export function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw * (1 - 1e-9)) return m * power;
  return 10 * power;
}

/**
 * Ticks covering [lo, hi] with about `count` intervals, at whole multiples of a nice step; the
 * first tick is at or below lo and the last at or above hi, so they also bound the axis.
 * @param {number} lo
 * @param {number} hi
 * @param {number} [count]
 * @returns {{ step: number, decimals: number, values: number[] }}
 */
export function niceTicks(lo, hi, count = 4) {
  if (!(hi > lo)) hi = lo + 1;
  const step = niceStep((hi - lo) / count);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  /** @type {number[]} */
  const values = [];
  // Whole multiples of the step, rounded to its decimals: 0.1 × 3 is 0.30000000000000004.
  for (let k = first; k <= last; k++) values.push(Number((k * step).toFixed(decimals)));
  return { step, decimals, values };
}
