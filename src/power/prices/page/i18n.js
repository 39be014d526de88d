// @ts-check
// The page's words in Danish (the default) and English, and its number and time formats. The
// server fills the document's static text ({{key}}) from the Danish strings, so the first paint
// is Danish before any script runs; the script re-labels [data-t] elements for English.

/** @typedef {'da' | 'en'} Lang */
/** @typedef {'spot' | 'total'} Basis */

export const LANGS = /** @type {const} */ (['da', 'en']);

const da = {
  docTitle: 'Elpriser · satwatt',
  heading: 'Elpriser',
  refresh: 'Opdater',
  modeGroup: 'Vist pris',
  modeSpot: 'Spotpris',
  modeTotal: 'Alt inkl. moms',
  areaGroup: 'Prisområde',
  areaDK1: 'DK1 Vest',
  areaDK2: 'DK2 Øst',
  langGroup: 'Sprog',
  loading: 'Henter…',
  chartLabel: 'Priserne i dag og i morgen',
  legendLabel: 'Forklaring',
  legendToday: 'I dag',
  legendTomorrow: 'I morgen',
  legendCheap: 'Billigste 3 timer',
  legendNow: 'Nu',
  legendLow: 'Lav: dagens billigste fjerdedel',
  legendMid: 'Mellem',
  legendHigh: 'Høj: dagens dyreste fjerdedel',
  unitSpot: 'øre/kWh, spotpris uden moms og tariffer',
  unitTotal: 'øre/kWh, alt inkl.: spotpris, tariffer, afgifter og moms',
  today: 'I dag',
  tomorrow: 'I morgen',
  noToday: 'Ingen priser gemt for i dag endnu.',
  notPublished:
    'Morgendagens priser er ikke offentliggjort endnu. De kommer normalt omkring kl. 13 dansk tid.',
  partsMissing:
    'En tarif eller afgift er ikke offentliggjort for nogle timer; deres pris alt inkl. er ukendt.',
  needsGrid: 'Prisen alt inkl. kræver, at netselskabet er sat op. Her vises spotprisen.',
  chargesMissing: 'Tariffer og afgifter mangler for dagen. Her vises spotprisen.',
  tagNow: 'nu',
  tagCheap: 'billig',
  weekdays: ['søndag', 'mandag', 'tirsdag', 'onsdag', 'torsdag', 'fredag', 'lørdag'],
  months: [
    'januar',
    'februar',
    'marts',
    'april',
    'maj',
    'juni',
    'juli',
    'august',
    'september',
    'oktober',
    'november',
    'december',
  ],
  levelLow: 'lav pris',
  levelHigh: 'høj pris',
  parts: {
    spot: 'Spotpris',
    grid_tariff: 'Nettarif',
    transmission_tariff: 'Transmissionstarif',
    system_tariff: 'Systemtarif',
    electricity_tax: 'Elafgift',
    supplier_markup: 'Leverandørtillæg',
    vat: 'Moms',
  },
  pageTitle: (/** @type {string} */ area) => `Elpriser ${area} · satwatt`,
  updated: (/** @type {string} */ time) => `Opdateret ${time}`,
  failed: (/** @type {string} */ why) => `Kunne ikke hente priserne: ${why}`,
  tomorrowFailed: (/** @type {string} */ why) => `Morgendagens priser kunne ikke hentes (${why}).`,
  incomplete: (/** @type {number} */ n, /** @type {number} */ of) =>
    `Ufuldstændig: ${n} af ${of} timer er offentliggjort indtil videre.`,
  /** @type {(from: string, to: string, average: string, basis: Basis, asked: Basis) => string} */
  cheapest: (from, to, average, basis, asked) =>
    basis === 'spot'
      ? `Billigste 3 timer${asked === 'total' ? ' efter spotprisen (afgifter mangler)' : ''}: ${from}–${to}, spotpris ${average} øre/kWh i snit`
      : `Billigste 3 timer: ${from}–${to}, ${average} øre/kWh i snit alt inkl.`,
  nowLine: (/** @type {string} */ hour, /** @type {string} */ price) => `Nu, ${hour}: ${price} øre/kWh`,
};

/** @typedef {typeof da} Messages */

/** @type {Messages} */
const en = {
  docTitle: 'Electricity prices · satwatt',
  heading: 'Electricity prices',
  refresh: 'Refresh',
  modeGroup: 'Price shown',
  modeSpot: 'Spot',
  modeTotal: 'All-in incl. VAT',
  areaGroup: 'Price area',
  areaDK1: 'DK1 West',
  areaDK2: 'DK2 East',
  langGroup: 'Language',
  loading: 'Loading…',
  chartLabel: 'Prices of today and tomorrow',
  legendLabel: 'Legend',
  legendToday: 'Today',
  legendTomorrow: 'Tomorrow',
  legendCheap: 'Cheapest 3 hours',
  legendNow: 'Now',
  legendLow: "Low: the day's cheapest quarter",
  legendMid: 'Middle',
  legendHigh: "High: the day's dearest quarter",
  unitSpot: 'øre/kWh, spot price excl. VAT and tariffs',
  unitTotal: 'øre/kWh, all-in: spot, tariffs, charges, tax and VAT',
  today: 'Today',
  tomorrow: 'Tomorrow',
  noToday: 'No prices stored for today yet.',
  notPublished: "Tomorrow's prices are not published yet. They usually appear from about 13:00 Danish time.",
  partsMissing: 'A tariff or charge is not published for some hours; their all-in price is unknown.',
  needsGrid: 'The all-in price needs the grid company configured. Showing the spot price.',
  chargesMissing: "The day's tariffs and charges are missing. Showing the spot price.",
  tagNow: 'now',
  tagCheap: 'cheap',
  weekdays: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
  months: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
  levelLow: 'low price',
  levelHigh: 'high price',
  parts: {
    spot: 'Spot',
    grid_tariff: 'Grid tariff',
    transmission_tariff: 'Transmission tariff',
    system_tariff: 'System tariff',
    electricity_tax: 'Electricity tax',
    supplier_markup: 'Supplier markup',
    vat: 'VAT',
  },
  pageTitle: (area) => `Electricity prices ${area} · satwatt`,
  updated: (time) => `Updated ${time}`,
  failed: (why) => `Could not load prices: ${why}`,
  tomorrowFailed: (why) => `Tomorrow's prices could not be loaded (${why}).`,
  incomplete: (n, of) => `Incomplete: ${n} of ${of} hours published so far.`,
  cheapest: (from, to, average, basis, asked) =>
    basis === 'spot'
      ? `Cheapest 3 hours${asked === 'total' ? ' by spot price (charges missing)' : ''}: ${from}–${to}, spot ${average} øre/kWh on average`
      : `Cheapest 3 hours: ${from}–${to}, ${average} øre/kWh on average, all-in`,
  nowLine: (hour, price) => `Now, ${hour}: ${price} øre/kWh`,
};

/** @type {Record<Lang, Messages>} */
export const MESSAGES = { da, en };

/** The message `key` names when it is a plain string (what the document's static text may use). */
export function staticText(/** @type {Lang} */ lang, /** @type {string} */ key) {
  const text = /** @type {Record<string, unknown>} */ (MESSAGES[lang])[key];
  return typeof text === 'string' ? text : null;
}

/**
 * A remembered choice wins; then the first of the browser's languages that the page speaks, in
 * the browser's order of preference; then Danish.
 * @param {string | null} stored
 * @param {readonly string[]} languages navigator.languages
 * @returns {Lang}
 */
export function pickLanguage(stored, languages) {
  if (stored === 'da' || stored === 'en') return stored;
  for (const tag of languages) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'da' || primary === 'en') return primary;
  }
  return 'da';
}

const LOCALES = { da: 'da-DK', en: 'en-GB' };
const SEPARATORS = { da: { group: '.', decimal: ',' }, en: { group: ',', decimal: '.' } };

/**
 * `value` with `decimals` decimals in the language's notation, rounded half away from zero on its
 * shortest decimal form, as Intl.NumberFormat writes it (da-DK "1.234,57", en-GB "1,234.57").
 * Written out because the first Intl.NumberFormat of a page loads locale data for tens of
 * milliseconds, four times that on a slow phone, for numbers this simple.
 * @param {number} value
 * @param {number} decimals 0 to 6
 * @param {Lang} lang
 */
export function formatNumber(value, decimals, lang) {
  const abs = Math.abs(value);
  if (!(abs < 1e15))
    return new Intl.NumberFormat(LOCALES[lang], { maximumFractionDigits: decimals }).format(value);
  const { group, decimal } = SEPARATORS[lang];
  const negative = value < 0 || Object.is(value, -0);
  // "1.005e2" is read as exactly 100.5, where 1.005 * 100 is 100.49999999999999 (below 1e-6 a
  // number's text has an exponent of its own, and it rounds to 0 or one last digit anyway).
  const scaled = Math.round(abs < 1e-6 ? abs * 10 ** decimals : Number(`${abs}e${decimals}`));
  const digits = String(scaled).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, group);
  return `${negative ? '-' : ''}${grouped}${decimals > 0 ? decimal + digits.slice(-decimals) : ''}`;
}

/**
 * @typedef {object} Formats
 * @property {(ore: number | null) => string} price øre/kWh with two decimals, '–' when unknown
 * @property {(value: number, decimals: number) => string} tick an axis value
 * @property {(instant: number) => string} time the Danish wall-clock time, with seconds
 * @property {(date: string) => string} day a Danish date `YYYY-MM-DD` in words
 */

/** @returns {Formats} */
export function formatsFor(/** @type {Lang} */ lang) {
  const words = MESSAGES[lang];
  /** @type {Intl.DateTimeFormat | undefined} */
  let time;
  return {
    price: (ore) => (ore === null ? '–' : formatNumber(ore, 2, lang)),
    tick: (value, decimals) => formatNumber(value === 0 ? 0 : value, decimals, lang),
    time: (instant) => {
      // Only the status line needs a time zone's rules; made on first use.
      time ??= new Intl.DateTimeFormat(LOCALES[lang], {
        timeZone: 'Europe/Copenhagen',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      });
      return time.format(instant);
    },
    day: (date) => {
      const [y, m, d] = date.split('-').map(Number);
      const weekday = words.weekdays[new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d)).getUTCDay()];
      const month = words.months[(m ?? 1) - 1];
      return lang === 'da' ? `${weekday} ${d}. ${month} ${y}` : `${weekday} ${d} ${month} ${y}`;
    },
  };
}
