import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const read = (name: string) => readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');

export interface HomePage {
  html: string;
  /** Allows exactly the page's own inline script, by its hash, and nothing else. */
  contentSecurityPolicy: string;
}

/** The home page as one document: style and script inlined, so there is nothing to build or fetch but data. */
export function loadHomePage(): HomePage {
  const html = read('index.html')
    .replace('/*STYLE*/', () => read('style.css'))
    .replace('/*SCRIPT*/', () => read('app.js'));
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  const hash = createHash('sha256').update(script).digest('base64');
  return {
    html,
    contentSecurityPolicy: [
      "default-src 'self'",
      `script-src 'sha256-${hash}'`,
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
