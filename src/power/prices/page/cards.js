// @ts-check
// A day's section: its heading, notices, the cheapest-hours line and one open card per hour
// (the quarter hours in the spot view, the parts of the price in the all-in view).
import { inWindow } from './cheapest.js';
import { PART_KEYS } from './data.js';
import { el } from './dom.js';
import { levelOf, thresholds } from './levels.js';
import { HOUR, danishClock, labeller } from './time.js';
import { basisOf, noticesOf, valueOf, windowOf } from './view.js';

/**
 * @typedef {object} DayView
 * @property {import('./view.js').Mode} mode the chosen price
 * @property {import('./i18n.js').Messages} text
 * @property {import('./format.js').Formats} fmt
 * @property {number} now
 */

/** Rows of cards built per task (8 cards of 4 quarter hours): a slow phone keeps answering while a day is drawn. */
const ROWS_PER_TASK = 32;

/**
 * Builds a day's section apart and puts it in place at once, yielding to the browser between
 * batches of cards; `pause` resolves false when this drawing is no longer wanted.
 * @param {HTMLElement} section
 * @param {string} title
 * @param {string} date
 * @param {import('./data.js').Day | null} day
 * @param {string} missing what to say when the day has no hours
 * @param {DayView} view
 * @param {() => Promise<boolean>} pause
 * @returns {Promise<boolean>} whether the section was drawn
 */
export async function renderDay(section, title, date, day, missing, view, pause) {
  const { text, fmt } = view;
  /** @type {Node[]} */
  const out = [el('h2', {}, `${title} · `, el('time', { datetime: date }, date ? fmt.day(date) : ''))];
  if (!day || day.hours.length === 0) {
    section.replaceChildren(...out, el('p', { class: 'notice', 'data-missing': true }, missing));
    return true;
  }
  for (const n of noticesOf(day, view.mode))
    out.push(
      el(
        'p',
        { class: 'notice', 'data-notice': n.key },
        n.key === 'incomplete' ? text.incomplete(n.n, n.of) : text[n.key],
      ),
    );
  const basis = basisOf(day, view.mode);
  const w = windowOf(day, basis);
  const summary =
    w &&
    el(
      'p',
      { class: 'window', 'data-window-summary': w.basis },
      text.cheapest(w.from, w.to, fmt.price(w.average), w.basis, view.mode),
    );
  const levels = thresholds(day.hours.map((h) => valueOf(h, basis)));
  const label = { hour: labeller(day.hours), quarter: labeller(day.quarters) };
  // Hours already over fold away, with the day's cheapest hours when those are over too: the
  // current hour's card comes first.
  const isPast = (/** @type {{ start: number }} */ h) => h.start + HOUR <= view.now;
  const past = day.hours.filter(isPast);
  const grid = el('div', { class: 'cards' });
  const pastGrid = el('div', { class: 'cards' });
  const batch = Math.max(1, Math.floor(ROWS_PER_TASK / (basis === 'spot' ? 4 : PART_KEYS.length)));
  for (const [i, h] of day.hours.entries()) {
    if (i > 0 && i % batch === 0 && !(await pause())) return false;
    const c = card(day, h, basis, levelOf(valueOf(h, basis), levels), inWindow(w, h.start), label, view);
    (isPast(h) ? pastGrid : grid).append(c);
  }
  // the height a card off screen is given until it is drawn: its rows', so the page does not jump
  const rows = String(grid.querySelector('ul')?.childElementCount ?? 4);
  for (const g of [grid, pastGrid]) g.style.setProperty('--rows', rows);
  const over = summary !== null && w !== null && w.end <= view.now;
  if (summary && !over) out.push(summary);
  const first = past[0];
  if (first) {
    const end = danishClock(first.start + past.length * HOUR).slice(0, 5);
    out.push(
      el(
        'details',
        { class: 'past' },
        el('summary', {}, text.earlier(label.hour(first), end, past.length)),
        ...(over ? [summary] : []),
        pastGrid,
      ),
    );
  }
  section.replaceChildren(...out, grid);
  return true;
}

/**
 * @param {import('./data.js').Day} day
 * @param {import('./data.js').Hour} h
 * @param {import('./view.js').Mode} basis
 * @param {import('./levels.js').Level | null} level
 * @param {boolean} cheap
 * @param {{ hour: (i: { time_dk: string }) => string, quarter: (i: { time_dk: string }) => string }} label
 * @param {DayView} view
 */
function card(day, h, basis, level, cheap, label, view) {
  const { text, fmt } = view;
  const isNow = view.now >= h.start && view.now < h.start + HOUR;
  const rows =
    basis === 'spot'
      ? day.quarters
          .filter((q) => q.start >= h.start && q.start < h.start + HOUR)
          .map((q) => row(label.quarter(q), fmt.price(q.spot)))
      : PART_KEYS.map((k) => row(text.parts[k], fmt.price(h.parts?.[k] ?? null)));
  return el(
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
        el('time', { datetime: h.time_dk }, label.hour(h)),
        ...(isNow ? [el('span', { class: 'tag now' }, text.tagNow)] : []),
        ...(cheap ? [el('span', { class: 'tag cheap' }, text.tagCheap)] : []),
      ),
      el('span', { class: 'num avg' }, fmt.price(valueOf(h, basis))),
      ...(level === 'low' || level === 'high'
        ? [el('span', { class: 'sr' }, level === 'low' ? text.levelLow : text.levelHigh)]
        : []),
    ),
    el('ul', { class: 'rows' }, ...rows),
  );
}

const row = (/** @type {string} */ name, /** @type {string} */ value) =>
  el('li', {}, el('span', {}, name), el('span', { class: 'num' }, value));
