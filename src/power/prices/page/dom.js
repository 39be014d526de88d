// @ts-check
// Building elements: attributes as an object, children as nodes or text.

const SVG = 'http://www.w3.org/2000/svg';

/** @typedef {Record<string, string | number | boolean | undefined>} Attrs */

/** @param {Element} node @param {Attrs} attrs */
function setAll(node, attrs) {
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : String(v));
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...(Node | string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAll(node, attrs);
  node.append(...children);
  return node;
}

/**
 * @param {string} tag
 * @param {Attrs} attrs
 * @param {string} [text]
 * @returns {SVGElement}
 */
export function svg(tag, attrs, text) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  setAll(node, attrs);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element of an id the document is known to have. */
export function byId(/** @type {string} */ id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}
