import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { servePricePage, type ServedPricePage } from './price-page.js';

/** What the home page's browser tests share: the served page, Chromium, and the errors it logged. */
export interface HomeBrowser {
  served: ServedPricePage;
  browser: Browser;
  /** The page's origin, without the trailing slash. */
  base: string;
  /** Script errors and Content-Security-Policy violations of every page opened. */
  consoleErrors: string[];
  /**
   * A phone (or a screen of `viewport`) in Los Angeles whose browser prefers `locale`: every time
   * shown must still be Danish time.
   */
  phone(
    locale: string,
    viewport?: { width: number; height: number },
  ): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/** The home page served with the app's clock at `now`, and Debian's Chromium to look at it. */
export async function openHomeBrowser(
  now: string,
  opts: Parameters<typeof servePricePage>[1] = {},
): Promise<HomeBrowser> {
  const served = await servePricePage(now, opts);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const consoleErrors: string[] = [];
  return {
    served,
    browser,
    base: served.url.replace(/\/$/, ''),
    consoleErrors,
    async phone(locale, viewport = { width: 390, height: 844 }) {
      const context = await browser.newContext({
        viewport,
        timezoneId: 'America/Los_Angeles',
        locale,
      });
      const page = await context.newPage();
      // The browser's clock follows the app's, so that "now" on the page is the app's current hour.
      await page.clock.setFixedTime(served.app.clock.now());
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      return { context, page };
    },
    async close() {
      await browser.close();
      await served.close();
    },
  };
}

export const DA = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The visible top of the page and the whole page, for a person to look at. */
export async function shoot(p: Page, name: string) {
  await p.screenshot({ path: `/tmp/power-${name}.png` });
  // cards off screen are not drawn until scrolled to (content-visibility): draw them all for this
  const all = await p.addStyleTag({ content: 'details.hour { content-visibility: visible }' });
  await p.screenshot({ path: `/tmp/power-${name}-full.png`, fullPage: true });
  await all.evaluate((e) => (e as Element).remove());
}

export const loads = (p: Page) => p.evaluate(() => Number(document.body.dataset.loads ?? 0));

/** Presses the refresh button and waits until the page has loaded and drawn again. */
export async function refreshed(p: Page) {
  const before = await loads(p);
  await p.click('#refresh');
  await p.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
}

/** Presses a switch and waits until the page has drawn what it chose. */
export async function press(p: Page, selector: string) {
  const before = await p.evaluate(() => Number(document.body.dataset.drawn ?? 0));
  await p.click(selector);
  await p.waitForFunction((n) => Number(document.body.dataset.drawn ?? 0) > n, before);
}

/** Opens the page and waits for its first load. */
export async function opened(p: Page, url: string) {
  await p.goto(url);
  await p.waitForFunction(() => Number(document.body.dataset.loads ?? 0) >= 1);
}

export interface Elprice {
  items: { time_dk: string; price_area: string; price_dkk: number }[];
}
