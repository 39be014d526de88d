// @ts-check
// The switches (price, area, language) and the refresh button: the chosen values are remembered
// in this browser only (the page shows no household data), and the document's static text
// follows the language.
import { pickLanguage, staticText } from './i18n.js';

/** @typedef {import('./i18n.js').Lang} Lang */
/** @typedef {{ mode: 'spot' | 'total', area: 'DK1' | 'DK2', lang: Lang }} State */
/** @typedef {Pick<Storage, 'getItem' | 'setItem'>} Store */

const KEYS = { mode: 'satwatt.mode', area: 'satwatt.area', lang: 'satwatt.lang' };

/** localStorage, or null where the browser refuses it (private modes, disabled storage). */
export function browserStore() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The state the page starts in: what this browser chose before, else spot (until the household's
 * charges are known to be there), DK1, and the language of the browser's preferences (Danish
 * unless English comes first).
 * @param {Store | null} store
 * @param {readonly string[]} languages
 * @returns {State}
 */
export function initialState(store, languages) {
  const get = (/** @type {string} */ key) => {
    try {
      return store?.getItem(key) ?? null;
    } catch {
      return null;
    }
  };
  const mode = get(KEYS.mode);
  const area = get(KEYS.area);
  return {
    mode: mode === 'total' ? 'total' : 'spot',
    area: area === 'DK2' ? 'DK2' : 'DK1',
    lang: pickLanguage(get(KEYS.lang), languages),
  };
}

/** Whether this browser chose the price shown before: that choice wins over the page's default. */
export function priceChosen(/** @type {Store | null} */ store) {
  try {
    return store?.getItem(KEYS.mode) === 'spot' || store?.getItem(KEYS.mode) === 'total';
  } catch {
    return false;
  }
}

/** The document's static text in `lang`: [data-t] elements' text, [data-t-label] elements' aria-label. */
export function applyLanguage(/** @type {Lang} */ lang) {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-t]')) {
    const t = staticText(lang, node.getAttribute('data-t') ?? '');
    if (t !== null) node.textContent = t;
  }
  for (const node of document.querySelectorAll('[data-t-label]')) {
    const t = staticText(lang, node.getAttribute('data-t-label') ?? '');
    if (t !== null) node.setAttribute('aria-label', t);
  }
}

/** Marks the pressed button of each switch. */
export function showState(/** @type {State} */ state) {
  for (const b of document.querySelectorAll('button[data-mode], button[data-area], button[data-lang]')) {
    const on =
      (b instanceof HTMLElement && b.dataset.mode === state.mode) ||
      (b instanceof HTMLElement && b.dataset.area === state.area) ||
      (b instanceof HTMLElement && b.dataset.lang === state.lang);
    b.setAttribute('aria-pressed', String(on));
  }
}

/**
 * Wires the switches: a press changes the state, remembers it and calls `changed` with what changed.
 * @param {State} state
 * @param {Store | null} store
 * @param {(what: keyof State) => void} changed
 */
export function bindSwitches(state, store, changed) {
  /** @type {[keyof State, string, readonly string[]][]} */
  const switches = [
    ['mode', 'button[data-mode]', ['spot', 'total']],
    ['area', 'button[data-area]', ['DK1', 'DK2']],
    ['lang', 'button[data-lang]', ['da', 'en']],
  ];
  for (const [what, selector, allowed] of switches)
    for (const b of document.querySelectorAll(selector)) {
      if (!(b instanceof HTMLElement)) continue;
      b.addEventListener('click', () => {
        const value = b.dataset[what] ?? '';
        if (!allowed.includes(value) || state[what] === value) return;
        /** @type {Record<string, string>} */ (state)[what] = value;
        try {
          store?.setItem(KEYS[what], value);
        } catch {
          // a full or refused storage only means the choice is not remembered
        }
        changed(what);
      });
    }
}
