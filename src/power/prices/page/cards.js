// @ts-check
// A day's section: its heading, notices, the cheapest-hours line and one open card per hour
// (the quarter hours in the spot view, the parts of the price in the all-in view).
import { inWindow } from './cheapest.js';
import { PART_KEYS } from './data.js';
import { el } from './dom.js';
import { levelOf, thresholds } from './levels.js';
import { HOUR, hourAt, labeller } from './time.js';
import { basisOf, noticesOf, valueOf, windowOf } from './view.js';

/**
 * @typedef {object} DayView
 * @property {import('./view.js').Mode} mode the chosen price
 * @property {import('./i18n.js').Messages} text
 * @property {import('./i18n.js').Formats} fmt
 * @property {number} now
 */

/**
 * @param {HTMLElement} section
 * @param {string} title
 * @param {string} date
 * @param {import('./data.js').Day | null} day
 * @param {string} missing what to say when the day has no hours
 * @param {DayView} view
 */
export function renderDay(section, title, date, day, missing, view) {
  const { text, fmt } = view;
  section.replaceChildren(
    el('h2', {}, `${title} · `, el('time', { datetime: date }, date ? fmt.day(date) : '')),
  );
  if (!day || day.hours.length === 0) {
    section.append(el('p', { class: 'notice', 'data-missing': true }, missing));
    return;
  }
  for (const n of noticesOf(day, view.mode))
    section.append(
      el(
        'p',
        { class: 'notice', 'data-notice': n.key },
        n.key === 'incomplete' ? text.incomplete(n.n, n.of) : text[n.key],
      ),
    );
  const basis = basisOf(day, view.mode);
  const w = windowOf(day, basis);
  if (w)
    section.append(
      el(
        'p',
        { class: 'window', 'data-window-summary': w.basis },
        text.cheapest(w.from, w.to, fmt.price(w.average), w.basis, view.mode),
      ),
    );
  const levels = thresholds(day.hours.map((h) => valueOf(h, basis)));
  const hourLabel = labeller(day.hours);
  const quarterLabel = labeller(day.quarters);
  const grid = el('div', { class: 'cards' });
  for (const h of day.hours) {
    const v = valueOf(h, basis);
    const level = levelOf(v, levels);
    const isNow = view.now >= h.start && view.now < h.start + HOUR;
    const cheap = inWindow(w, h.start);
    const rows =
      basis === 'spot'
        ? day.quarters
            .filter((q) => q.start >= h.start && q.start < h.start + HOUR)
            .map((q) => row(quarterLabel(q), fmt.price(q.spot)))
        : PART_KEYS.map((k) => row(text.parts[k], fmt.price(h.parts?.[k] ?? null)));
    grid.append(
      el(
        'details',
        {
          class: ['hour', level, cheap && 'cheap', isNow && 'now'].filter(Boolean).join(' '),
          open: true,
          'data-time': h.time_dk,
          'data-window': cheap,
          id: isNow ? 'now-hour' : undefined,
          'aria-current': isNow ? 'time' : undefined,
        },
        el(
          'summary',
          {},
          el(
            'span',
            { class: 'when' },
            el('time', { datetime: h.time_dk }, hourLabel(h)),
            ...(isNow ? [el('span', { class: 'tag now' }, text.tagNow)] : []),
            ...(cheap ? [el('span', { class: 'tag cheap' }, text.tagCheap)] : []),
          ),
          el('span', { class: 'num avg' }, fmt.price(v)),
          ...(level === 'low' || level === 'high'
            ? [el('span', { class: 'sr' }, level === 'low' ? text.levelLow : text.levelHigh)]
            : []),
        ),
        el('ul', { class: 'rows' }, ...rows),
      ),
    );
  }
  section.append(grid);
}

const row = (/** @type {string} */ name, /** @type {string} */ value) =>
  el('li', {}, el('span', {}, name), el('span', { class: 'num' }, value));

/**
 * The current hour's price at the top of the page, linking to its card; empty when no hour of
 * `day` holds `now`.
 * @param {HTMLElement} target
 * @param {import('./data.js').Day} day
 * @param {DayView} view
 */
export function renderNow(target, day, view) {
  const i = hourAt(day.hours, view.now);
  const h = day.hours[i];
  if (!h) {
    target.replaceChildren();
    return;
  }
  const price = view.fmt.price(valueOf(h, basisOf(day, view.mode)));
  target.replaceChildren(el('a', { href: '#now-hour' }, view.text.nowLine(labeller(day.hours)(h), price)));
}
