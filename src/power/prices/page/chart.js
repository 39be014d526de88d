// @ts-check
// The chart of today and tomorrow as an SVG drawn into the figure's own box (CSS gives the box
// its aspect ratio, so the page does not move when the chart arrives), in CSS pixels so that its
// text is as large as the page's; the box's size comes from a ResizeObserver, which reads it
// after layout instead of forcing one. Colours come from the style sheet's classes, which the
// legend shares.
import { svg } from './dom.js';
import { niceTicks } from './ticks.js';
import { hourTicks } from './time.js';

/**
 * @typedef {object} Series one day on the chart
 * @property {string} date
 * @property {'today' | 'tomorrow'} which
 * @property {string} name what the legend calls it
 * @property {{ t: number, minutes: number, v: number | null }[]} steps
 * @property {{ time_dk: string, start: number }[]} hours
 * @property {import('./cheapest.js').Window | null} window
 */

/**
 * @typedef {object} ChartText
 * @property {string} title
 * @property {(value: number, decimals: number) => string} tick
 */

const M = { left: 52, right: 8, top: 26, bottom: 26 };

/**
 * Calls `changed` with the figure's content size after each layout that changes it.
 * @param {HTMLElement} figure
 * @param {(size: { width: number, height: number }) => void} changed
 */
export function watchSize(figure, changed) {
  new ResizeObserver((entries) => {
    for (const e of entries) changed({ width: e.contentRect.width, height: e.contentRect.height });
  }).observe(figure);
}

/**
 * @param {HTMLElement} figure
 * @param {{ width: number, height: number } | null} size the figure's box; null: not laid out yet
 * @param {Series[]} series days with at least one step
 * @param {number} now
 * @param {ChartText} text
 */
export function renderChart(figure, size, series, now, text) {
  const known = series.flatMap((s) => s.steps).flatMap((p) => (p.v === null ? [] : [p.v]));
  if (known.length === 0) {
    figure.replaceChildren();
    return;
  }
  // a figure not laid out (hidden) has no size: then the chart is drawn at a desktop's
  const W = size && size.width > 0 ? Math.max(size.width, 280) : 800;
  const H = size && size.height > 0 ? Math.max(size.height, 160) : 300;
  const t0 = Math.min(...series.map((s) => /** @type {{ t: number }} */ (s.steps[0]).t));
  const t1 = Math.max(...series.flatMap((s) => s.steps.map((p) => p.t + p.minutes * 60_000)));
  const ticks = niceTicks(Math.min(0, ...known), Math.max(0, ...known), H < 220 ? 3 : 4);
  const lo = /** @type {number} */ (ticks.values[0]);
  const hi = /** @type {number} */ (ticks.values[ticks.values.length - 1]);
  const x = (/** @type {number} */ t) => M.left + ((t - t0) / (t1 - t0)) * (W - M.left - M.right);
  const y = (/** @type {number} */ v) => M.top + ((hi - v) / (hi - lo)) * (H - M.top - M.bottom);
  const bottom = H - M.bottom;

  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: 'img',
    'aria-labelledby': 'chart-title',
  });
  root.append(svg('title', { id: 'chart-title' }, text.title));
  for (const s of series)
    if (s.window)
      root.append(
        svg('rect', {
          class: 'cheap-window',
          x: x(s.window.start),
          width: x(s.window.end) - x(s.window.start),
          y: M.top,
          height: bottom - M.top,
          'data-window': s.date,
        }),
      );
  for (const v of ticks.values) {
    root.append(
      svg('line', { class: v === 0 ? 'axis' : 'grid', x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }),
    );
    root.append(
      svg(
        'text',
        { class: 'label', x: M.left - 5, y: y(v) + 4, 'text-anchor': 'end', 'data-tick': v },
        text.tick(v, ticks.decimals),
      ),
    );
  }
  for (const s of series) {
    const sx = x(/** @type {{ t: number }} */ (s.steps[0]).t);
    root.append(svg('line', { class: 'day-start', x1: sx, x2: sx, y1: M.top - 4, y2: bottom }));
    root.append(svg('text', { class: `day-name ${s.which}`, x: sx + 4, y: 16 }, s.name));
    root.append(svg('path', { class: `line ${s.which}`, d: pathOf(s.steps, x, y), 'data-date': s.date }));
    for (const h of hourTicks(s.hours, W < 560 ? 6 : 3)) {
      const hx = x(h.at);
      root.append(svg('line', { class: 'axis', x1: hx, x2: hx, y1: bottom, y2: bottom + 4 }));
      root.append(
        svg(
          'text',
          { class: 'label', x: hx, y: H - 6, 'text-anchor': 'middle', 'data-hour-label': '' },
          h.label,
        ),
      );
    }
  }
  if (now >= t0 && now < t1)
    root.append(
      svg('line', { class: 'now', x1: x(now), x2: x(now), y1: M.top - 4, y2: bottom, 'data-now': '' }),
    );
  figure.replaceChildren(root);
}

/**
 * Steps as one path: flat across each period, a gap where the value is unknown.
 * @param {{ t: number, minutes: number, v: number | null }[]} steps
 * @param {(t: number) => number} x
 * @param {(v: number) => number} y
 */
function pathOf(steps, x, y) {
  let d = '';
  let pen = 'M';
  for (const p of steps) {
    if (p.v === null) {
      pen = 'M';
      continue;
    }
    const py = y(p.v).toFixed(1);
    d += `${pen}${x(p.t).toFixed(1)} ${py}L${x(p.t + p.minutes * 60_000).toFixed(1)} ${py}`;
    pen = 'L';
  }
  return d;
}
