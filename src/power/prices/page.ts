import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { staticText } from './page/i18n.js';

const FOLDER = new URL('./page/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, FOLDER), 'utf8');
/** Inlined into the document in this order, so that the first paint needs no second request. */
const STYLES = ['style.css', 'chart.css'];

/** A file of the page as sent: its text, and the same gzipped once at start for clients that take it. */
export interface PageFile {
  body: string;
  gzip: Buffer;
}

const pageFile = (body: string): PageFile => ({ body, gzip: gzipSync(body, { level: 9 }) });

export interface HomePage {
  html: PageFile;
  /** Scripts only from the page's own modules: nothing inline, nothing from elsewhere. */
  contentSecurityPolicy: string;
  /** Names the current set of files in the modules' path, so that they can be cached for good. */
  version: string;
  /** The page's ES modules by file name, as the browser loads them: no build step. */
  modules: ReadonlyMap<string, PageFile>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The home page: the document with its style inlined and its static text in Danish, and the
 * modules it loads from `/page/<version>/`, each announced by a modulepreload link so that the
 * browser fetches them all at once rather than one import level after another.
 */
export function loadHomePage(): HomePage {
  const names = readdirSync(FOLDER)
    .filter((n) => n.endsWith('.js'))
    .sort();
  const sources = new Map(names.map((n) => [n, read(n)]));
  const template = read('index.html');
  const style = STYLES.map(read).join('\n');
  const hash = createHash('sha256').update(template).update(style);
  for (const [name, body] of sources) hash.update(name).update(body);
  const version = hash.digest('hex').slice(0, 12);
  const base = `/page/${version}`;
  const scripts = [
    ...names.map((n) => `<link rel="modulepreload" href="${base}/${n}" />`),
    `<script type="module" src="${base}/main.js"></script>`,
  ].join('\n    ');
  const html = template
    .replace('/*STYLE*/', () => style)
    .replace('<!--MODULES-->', () => scripts)
    .replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
      const text = staticText('da', key);
      if (text === null) throw new Error(`the home page names no text "${key}"`);
      return escapeHtml(text);
    });
  return {
    html: pageFile(html),
    version,
    modules: new Map([...sources].map(([name, body]) => [name, pageFile(body)])),
    contentSecurityPolicy: [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'self'",
      "object-src 'none'",
    ].join('; '),
  };
}
