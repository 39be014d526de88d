// @ts-check
// Numbers, days and times as each language writes them.
import { MESSAGES } from './i18n.js';
import { danishClock } from './time.js';

/** @typedef {import('./i18n.js').Lang} Lang */

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
  return {
    price: (ore) => (ore === null ? '–' : formatNumber(ore, 2, lang)),
    tick: (value, decimals) => formatNumber(value === 0 ? 0 : value, decimals, lang),
    // as Intl.DateTimeFormat writes da-DK ("13.00.00") and en-GB ("13:00:00") in Danish time
    time: (instant) => danishClock(instant, lang === 'da' ? '.' : ':'),
    day: (date) => {
      const [y, m, d] = date.split('-').map(Number);
      const weekday = words.weekdays[new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d)).getUTCDay()];
      const month = words.months[(m ?? 1) - 1];
      return lang === 'da' ? `${weekday} ${d}. ${month} ${y}` : `${weekday} ${d} ${month} ${y}`;
    },
  };
}
