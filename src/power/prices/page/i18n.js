// @ts-check
// The page's words in Danish (the default) and English, and the choice between them. The
// server fills the document's static text ({{key}}) from the Danish strings, so the first paint
// is Danish before any script runs; the script re-labels [data-t] elements for English.

/** @typedef {'da' | 'en'} Lang */
/** @typedef {'spot' | 'total'} Basis */

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
  /**
   * The window from now, its price named only when it is not the one shown.
   * @type {(hours: number, day: 'today' | 'tomorrow', from: string, to: string, average: string, basis: Basis, shown: Basis) => string}
   */
  nextWindow: (hours, day, from, to, average, basis, shown) =>
    `Billigst næste gang (${hours} timer): ${day === 'today' ? 'i dag' : 'i morgen'} ${from}–${to}, ${average} øre/kWh i snit${
      basis === shown ? '' : basis === 'total' ? ' alt inkl.' : ' (spotpris)'
    }`,
  nextUnknown: (/** @type {number} */ hours) =>
    `Billigst næste gang (${hours} timer): endnu ukendt, så mange timer frem er ikke offentliggjort.`,
  markupZero: 'Heri er leverandørens tillæg 0 øre/kWh: intet tillæg er sat op.',
  chargesUnknown:
    'Husstandens tariffer og afgifter kendes ikke (intet netselskab sat op): her er spotprisen.',
  earlier: (/** @type {string} */ from, /** @type {string} */ to, /** @type {number} */ n) =>
    `Tidligere i dag: ${from}–${to} (${n} ${n === 1 ? 'time' : 'timer'})`,
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
  nextWindow: (hours, day, from, to, average, basis, shown) =>
    `Cheapest next (${hours} hours): ${day} ${from}–${to}, ${average} øre/kWh on average${
      basis === shown ? '' : basis === 'total' ? ', all-in' : ' (spot)'
    }`,
  nextUnknown: (hours) =>
    `Cheapest next (${hours} hours): not known yet, so many hours ahead are not published.`,
  markupZero: 'This includes a supplier markup of 0 øre/kWh: no markup is configured.',
  chargesUnknown:
    "The household's tariffs and charges are not known (no grid company configured): this is the spot price.",
  earlier: (from, to, n) => `Earlier today: ${from}–${to} (${n} ${n === 1 ? 'hour' : 'hours'})`,
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
