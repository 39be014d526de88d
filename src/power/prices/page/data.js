// @ts-check
// Loading a price area's today and tomorrow from the API and shaping them for the page, in
// øre/kWh: DKK/MWh ÷ 10 (spot prices), DKK/kWh × 100 (consumer prices). Any part of the all-in
// price may be null (a tariff not published, no grid company configured); the day then says how
// much of its all-in price is known, and the view falls back to spot where none is.
import { fromApi } from './cheapest.js';
import { HOUR, nextDate } from './time.js';

/** @typedef {import('./cheapest.js').Window} Window */

export const PART_KEYS = /** @type {const} */ ([
  'spot',
  'grid_tariff',
  'transmission_tariff',
  'system_tariff',
  'electricity_tax',
  'supplier_markup',
  'vat',
]);
/** @typedef {typeof PART_KEYS[number]} PartKey */

/**
 * What the page reads of the API's answers, whose types (api.d.ts) are written from the routes'
 * schemas by `npm run page-types`: a change of the API shows here as a type error.
 * @typedef {import('./api.js').ElpriceDay} ElpriceDay
 * @typedef {Pick<ElpriceDay['items'][number], 'time_dk' | 'price_area' | 'price_dkk'>} ElpriceItem
 * @typedef {Pick<ElpriceDay, 'date' | 'complete' | 'hours'> & { items: ElpriceItem[] }} ElpriceAnswer
 * @typedef {import('./api.js').PricesDay['items'][number]} PriceItem
 * @typedef {{ items: Pick<PriceItem, 'time_dk' | 'resolution_minutes' | 'price_dkk'>[] }} PricesAnswer
 * @typedef {import('./api.js').ConsumerPrices['items'][number]} ConsumerPriceItem
 * @typedef {Pick<ConsumerPriceItem, 'time_dk'> & Partial<Pick<ConsumerPriceItem, 'total' | PartKey>>} ConsumerItem
 *   the parts may be missing: the page shows what it has
 * @typedef {{ items: ConsumerItem[] }} ConsumerAnswer
 * @typedef {import('./api.js').Cheapest} Cheapest
 * @typedef {Pick<Cheapest, 'start_dk' | 'end_dk' | 'average_dkk_kwh' | 'basis'>} CheapestAnswer
 * @typedef {import('./api.js').CheapestWindow} CheapestWindow
 */

/**
 * The length of the headline's window from now, in minutes: three hours hold a dishwasher's or a
 * washing machine's programme, or an evening's charge of a car.
 */
export const NEXT_MINUTES = 180;

/** @typedef {Window & { date: string }} NextWindow the window and the Danish day it starts on */

/**
 * @typedef {object} Hour
 * @property {string} time_dk
 * @property {number} start instant, ms
 * @property {number} spot øre/kWh
 * @property {number | null} total all-in øre/kWh, null when a part is missing
 * @property {Record<PartKey, number | null> | null} parts øre/kWh each, null without consumer prices
 *
 * @typedef {{ time_dk: string, start: number, minutes: number, spot: number }} Quarter
 *
 * @typedef {object} Day
 * @property {string} date
 * @property {boolean} complete every hour of the day is published
 * @property {number} expected the day's hours: 23, 24 or 25
 * @property {Hour[]} hours of the area, in order
 * @property {Quarter[]} quarters of the area, in order
 * @property {Window | null} cheapestAllIn /api/cheapest's 3 hours (ranked on the all-in price when known)
 * @property {'complete' | 'partial' | 'none'} allIn how many hours have an all-in price
 * @property {boolean} gridMissing no hour has a grid tariff: the grid company is not configured
 */

/** @typedef {(url: string) => Promise<unknown>} GetJson */

/** An answer that says when to ask again (503 with Retry-After: the household's charges are loading). */
export class RetryLater extends Error {
  /**
   * @param {string} message
   * @param {number} seconds
   */
  constructor(message, seconds) {
    super(message);
    this.seconds = seconds;
  }
}

/** @type {GetJson} */
export async function fetchJson(url) {
  const res = await fetch(url, { cache: 'no-store' });
  /** @type {{ detail?: unknown }} */
  const body = await /** @type {Promise<{ detail?: unknown }>} */ (res.json()).catch(() => ({}));
  if (res.ok) return body;
  const why = typeof body.detail === 'string' ? body.detail : `HTTP ${res.status}`;
  const after = Number(res.headers.get('retry-after'));
  if (res.status === 503 && after > 0) throw new RetryLater(why, after);
  throw new Error(why);
}

const ore = (/** @type {unknown} */ dkkPerKwh) => (typeof dkkPerKwh === 'number' ? dkkPerKwh * 100 : null);

/**
 * One day of one area from the API's answers; `consumer` and `cheapest` may be missing.
 * @param {string} area
 * @param {ElpriceAnswer} elprice
 * @param {PricesAnswer | null} prices
 * @param {ConsumerAnswer | null} consumer
 * @param {CheapestAnswer | null} cheapest
 * @returns {Day}
 */
export function shapeDay(area, elprice, prices, consumer, cheapest) {
  const byTime = new Map((consumer?.items ?? []).map((i) => [i.time_dk, i]));
  /** @type {Hour[]} */
  const hours = elprice.items
    .filter((i) => i.price_area === area)
    .map((s) => {
      const c = byTime.get(s.time_dk);
      const parts = c
        ? /** @type {Record<PartKey, number | null>} */ (
            Object.fromEntries(PART_KEYS.map((k) => [k, ore(c[k])]))
          )
        : null;
      return {
        time_dk: s.time_dk,
        start: Date.parse(s.time_dk),
        spot: s.price_dkk / 10,
        total: c ? ore(c.total) : null,
        parts,
      };
    });
  const priced = hours.filter((h) => h.total !== null).length;
  return {
    date: elprice.date,
    complete: elprice.complete,
    expected: elprice.hours,
    hours,
    quarters: (prices?.items ?? []).map((q) => ({
      time_dk: q.time_dk,
      start: Date.parse(q.time_dk),
      minutes: q.resolution_minutes,
      spot: q.price_dkk / 10,
    })),
    cheapestAllIn: cheapest ? fromApi(cheapest) : null,
    allIn: priced === 0 ? 'none' : priced === hours.length ? 'complete' : 'partial',
    gridMissing: hours.every((h) => h.parts === null || h.parts.grid_tariff === null),
  };
}

/**
 * The rest of a day once its hourly spot prices are known: quarters, consumer prices and the
 * cheapest 3 hours, at once. Consumer prices and the window are optional: without them the day
 * still shows its spot prices. The window is asked for only when the day has 3 hours (else the
 * answer is a 404, which the browser's console reports as an error).
 * @param {GetJson} getJson
 * @param {string} area
 * @param {ElpriceAnswer} elprice
 * @returns {Promise<Day>}
 */
async function dayOf(getJson, area, elprice) {
  const q = `?area=${area}&date=${elprice.date}`;
  const [prices, consumer, cheapest] = await Promise.all([
    quartersOf(getJson, q),
    consumerOf(getJson, q),
    cheapestOf(getJson, q, elprice, area),
  ]);
  return shapeDay(area, elprice, prices, consumer, cheapest);
}

const quartersOf = (/** @type {GetJson} */ getJson, /** @type {string} */ q) =>
  /** @type {Promise<PricesAnswer>} */ (getJson(`/api/prices${q}`));
const consumerOf = (/** @type {GetJson} */ getJson, /** @type {string} */ q) =>
  /** @type {Promise<ConsumerAnswer | null>} */ (getJson(`/api/consumer-prices${q}`).catch(() => null));

/** @returns {Promise<CheapestAnswer | null>} */
function cheapestOf(
  /** @type {GetJson} */ getJson,
  /** @type {string} */ q,
  /** @type {ElpriceAnswer} */ elprice,
  /** @type {string} */ area,
) {
  if (elprice.items.filter((i) => i.price_area === area).length < 3) return Promise.resolve(null);
  return /** @type {Promise<CheapestAnswer>} */ (getJson(`/api/cheapest${q}&hours=3`)).catch(() => null);
}

/**
 * The cheapest NEXT_MINUTES from now (/api/cheapest: on the all-in price when the household's
 * charges are known), asked only when that much is published after now: else the answer is a
 * 404, which the browser's console reports as an error.
 * @param {GetJson} getJson
 * @param {string} area
 * @param {(ElpriceAnswer | null)[]} days today and tomorrow, as far as known
 * @param {number} now
 * @returns {Promise<NextWindow | null>}
 */
function nextOf(getJson, area, days, now) {
  const starts = days.flatMap((d) => d?.items.filter((i) => i.price_area === area) ?? []);
  const end = Math.max(...starts.map((i) => Date.parse(i.time_dk) + HOUR));
  const from = Math.ceil(now / (HOUR / 4)) * (HOUR / 4);
  if (!(end - from >= NEXT_MINUTES * 60_000)) return Promise.resolve(null);
  return /** @type {Promise<CheapestWindow>} */ (
    getJson(`/api/cheapest?minutes=${NEXT_MINUTES}&area=${area}`)
  )
    .then((w) => ({ ...fromApi(w), date: w.start_dk.slice(0, 10) }))
    .catch(() => null);
}

/**
 * Today (the server's Danish day) and tomorrow of one area, and the cheapest window from now.
 * Today's spot prices come first (they name the day); then the rest of today and all of tomorrow
 * at once, tomorrow's window and the window from now last.
 * @param {string} area
 * @param {GetJson} [getJson]
 * @param {() => number} [clock]
 * @returns {Promise<{ today: Day, tomorrow: Day | null, tomorrowDate: string, tomorrowError: string | null, next: NextWindow | null }>}
 */
export async function loadDays(area, getJson = fetchJson, clock = Date.now) {
  const todayPrices = /** @type {ElpriceAnswer} */ (await getJson('/api/elprice'));
  const tomorrowDate = nextDate(todayPrices.date);
  const q = `?area=${area}&date=${tomorrowDate}`;
  const tomorrowPrices = /** @type {Promise<ElpriceAnswer>} */ (getJson(`/api/elprice?date=${tomorrowDate}`));
  const [today, tomorrow, next] = await Promise.all([
    dayOf(getJson, area, todayPrices),
    Promise.all([tomorrowPrices, quartersOf(getJson, q), consumerOf(getJson, q)])
      .then(async ([elprice, prices, consumer]) =>
        shapeDay(area, elprice, prices, consumer, await cheapestOf(getJson, q, elprice, area)),
      )
      .then(
        (day) => ({ day, error: null }),
        (/** @type {unknown} */ e) => ({ day: null, error: e instanceof Error ? e.message : String(e) }),
      ),
    tomorrowPrices.then(
      (t) => nextOf(getJson, area, [todayPrices, t], clock()),
      () => nextOf(getJson, area, [todayPrices], clock()),
    ),
  ]);
  return { today, tomorrow: tomorrow.day, tomorrowDate, tomorrowError: tomorrow.error, next };
}
