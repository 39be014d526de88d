// @ts-check
// The home page: today's and tomorrow's prices of one area, loaded on start, on refresh and on
// an area switch; a price or language switch redraws what is loaded.
import { renderDay } from './cards.js';
import { renderChart, watchSize } from './chart.js';
import {
  applyLanguage,
  bindSwitches,
  browserStore,
  initialState,
  priceChosen,
  showState,
} from './controls.js';
import { loadDays, RetryLater } from './data.js';
import { byId } from './dom.js';
import { formatsFor } from './format.js';
import { renderHeadline } from './headline.js';
import { MESSAGES } from './i18n.js';
import { HOUR } from './time.js';
import { basisOf, stepsOf, windowOf } from './view.js';

const store = browserStore();
const state = initialState(store, navigator.languages ?? [navigator.language]);
let chosen = priceChosen(store);
let text = MESSAGES[state.lang];
let fmt = formatsFor(state.lang);
/** @type {Awaited<ReturnType<typeof loadDays>> | null} */
let shown = null;
/** @type {{ at: number } | { error: string } | null} */
let outcome = null;
let loading = false;
let again = false;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let tick;

function showStatus() {
  byId('status').textContent = loading
    ? text.loading
    : outcome === null
      ? ''
      : 'error' in outcome
        ? text.failed(outcome.error)
        : text.updated(fmt.time(outcome.at));
}

/** The next task: the browser paints and answers input in between. */
const nextTask = () =>
  new Promise((resolve) => {
    const s = /** @type {{ scheduler?: { yield?: () => Promise<void> } }} */ (globalThis).scheduler;
    if (s?.yield) void s.yield().then(resolve);
    else setTimeout(resolve, 0);
  });

let drawing = 0;
/** @type {{ width: number, height: number } | null} */
let chartSize = null;
/** @type {{ series: import('./chart.js').Series[], now: number, text: import('./chart.js').ChartText } | null} */
let chart = null;
const drawChart = () => chart && renderChart(byId('chart'), chartSize, chart.series, chart.now, chart.text);

/** Draws what is loaded in the chosen price and language: the top at once, each day's cards in batches. */
async function render() {
  const mine = ++drawing;
  const current = () => nextTask().then(() => mine === drawing);
  showState(state);
  const today = shown?.today;
  const basis = today ? basisOf(today, state.mode) : state.mode;
  const unit = `${state.area}, ${basis === 'spot' ? text.unitSpot : text.unitTotal}`;
  byId('unit').textContent = unit;
  document.title = text.pageTitle(state.area);
  showStatus();
  if (!shown || !today) return;
  const now = Date.now();
  const view = { mode: state.mode, text, fmt, now };
  /** @type {import('./chart.js').Series[]} */
  const series = [];
  for (const [day, which] of /** @type {const} */ ([
    [today, 'today'],
    [shown.tomorrow, 'tomorrow'],
  ]))
    if (day && day.hours.length > 0) {
      const b = basisOf(day, state.mode);
      series.push({
        date: day.date,
        which,
        name: text[which],
        steps: stepsOf(day, b),
        hours: day.hours,
        window: windowOf(day, b),
      });
    }
  chart = { series, now, text: { title: unit, tick: fmt.tick } };
  drawChart();
  renderHeadline({ now: byId('now'), next: byId('next'), note: byId('note') }, today, shown.next, view);
  const { tomorrow, tomorrowDate, tomorrowError } = shown;
  const drawn =
    (await current()) &&
    (await renderDay(byId('today'), text.today, today.date, today, text.noToday, view, current)) &&
    (await current()) &&
    (await renderDay(
      byId('tomorrow'),
      text.tomorrow,
      tomorrowDate,
      tomorrow,
      tomorrowError ? text.tomorrowFailed(tomorrowError) : text.notPublished,
      view,
      current,
    ));
  if (!drawn) return;
  document.body.dataset.drawn = String(Number(document.body.dataset.drawn ?? 0) + 1);
  // The current hour moves on: redraw at the next hour; load the new day after midnight, and the
  // next window once the one named has begun.
  clearTimeout(tick);
  const next = shown.next;
  tick = setTimeout(
    () => {
      const last = today.hours[today.hours.length - 1];
      if ((last && Date.now() >= last.start + HOUR) || (next && Date.now() >= next.start)) void load();
      else void render();
    },
    HOUR - (now % HOUR) + 1000,
  );
}

async function load() {
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  const refresh = /** @type {HTMLButtonElement} */ (byId('refresh'));
  refresh.disabled = true;
  showStatus();
  try {
    shown = await loadDays(state.area);
    outcome = { at: Date.now() };
    // What the household pays leads, once its charges are known, unless this browser chose a price.
    if (!chosen) state.mode = shown.today.allIn === 'none' ? 'spot' : 'total';
  } catch (e) {
    outcome = { error: e instanceof Error ? e.message : String(e) };
    // Asked to come back (the charges of a first start are loading): the page does, at most a minute on.
    if (e instanceof RetryLater) setTimeout(() => void load(), Math.min(e.seconds, 60) * 1000);
  } finally {
    loading = false;
    refresh.disabled = false;
  }
  if (again) {
    again = false;
    return load();
  }
  await render();
  document.body.dataset.loads = String(Number(document.body.dataset.loads ?? 0) + 1);
}

bindSwitches(state, store, (what) => {
  if (what === 'lang') {
    text = MESSAGES[state.lang];
    fmt = formatsFor(state.lang);
    applyLanguage(state.lang);
  }
  if (what === 'mode') chosen = true;
  if (what === 'area') {
    showState(state);
    void load();
  } else void render();
});
byId('refresh').addEventListener('click', () => void load());
watchSize(byId('chart'), (size) => {
  const redraw = chartSize === null || size.width !== chartSize.width;
  chartSize = size;
  if (redraw) drawChart();
});
if (state.lang !== 'da') applyLanguage(state.lang);
void render();
void load();
