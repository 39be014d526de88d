import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePricePage, type ServedPricePage } from '../../../test/support/price-page.js';

let served: ServedPricePage;
let browser: Browser;
let page: Page;
let base: string;
const consoleErrors: string[] = [];
const DA = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const HOUR = 3_600_000;

/** A phone in Los Angeles whose browser prefers Danish: every time shown must still be Danish time. */
async function phone(locale: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    timezoneId: 'America/Los_Angeles',
    locale,
  });
  const page = await context.newPage();
  // The browser's clock follows the app's, so that "now" on the page is the app's current hour.
  await page.clock.setFixedTime(served.app.clock.now());
  // A Content-Security-Policy violation or a script error shows up here.
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  return { context, page };
}

beforeAll(async () => {
  // 12:00 in Denmark on the Saturday before the autumn change: tomorrow has 25 hours.
  served = await servePricePage('2025-10-25T10:00:00Z');
  base = served.url.replace(/\/$/, '');
  browser = await chromium.launch({
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
  ({ page } = await phone('da-DK'));
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
});

/** The visible top of the page and the whole page, for a person to look at. */
async function shoot(p: Page, name: string) {
  await p.screenshot({ path: `/tmp/power-${name}.png` });
  // cards off screen are not drawn until scrolled to (content-visibility): draw them all for this
  const all = await p.addStyleTag({ content: 'details.hour { content-visibility: visible }' });
  await p.screenshot({ path: `/tmp/power-${name}-full.png`, fullPage: true });
  await all.evaluate((e) => (e as Element).remove());
}

const cards = (section: string) => page.locator(`#${section} details.hour`);
const loads = (p = page) => p.evaluate(() => Number(document.body.dataset.loads ?? 0));
async function refreshed(p = page) {
  const before = await loads(p);
  await p.click('#refresh');
  await p.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
}
/** Presses a switch and waits until the page has drawn what it chose. */
async function press(selector: string, p = page) {
  const before = await p.evaluate(() => Number(document.body.dataset.drawn ?? 0));
  await p.click(selector);
  await p.waitForFunction((n) => Number(document.body.dataset.drawn ?? 0) > n, before);
}
async function opened(p: Page, url = `${base}/`) {
  await p.goto(url);
  await p.waitForFunction(() => Number(document.body.dataset.loads ?? 0) >= 1);
}
const api = <T>(url: string) => served.app.call('GET', url).then((r) => r.json<T>());
interface Elprice {
  items: { time_dk: string; price_area: string; price_dkk: number }[];
}

/** The oracle of the spot view's window: the 3 consecutive DK1 hours with the lowest mean spot price. */
async function cheapestSpot(date: string) {
  const hours = (await api<Elprice>(`/api/elprice?date=${date}`)).items.filter((i) => i.price_area === 'DK1');
  let best = { at: -1, sum: Infinity };
  for (let i = 0; i + 3 <= hours.length; i++) {
    const sum = hours.slice(i, i + 3).reduce((s, h) => s + h.price_dkk / 10, 0);
    if (sum < best.sum) best = { at: i, sum };
  }
  return { times: hours.slice(best.at, best.at + 3).map((h) => h.time_dk), average: best.sum / 3 };
}

describe('home page in Chromium', () => {
  it('shows today as 24 open hour cards with quarter rows, and says in Danish that tomorrow is not published yet', async () => {
    served.fake.publication.set('2025-10-26', 'none');
    await opened(page);
    expect(await page.locator('html').getAttribute('lang')).toBe('da');
    expect(await page.locator('h1 [data-t="heading"]').textContent()).toBe('Elpriser');
    expect(await cards('today').count()).toBe(24);
    expect(await page.locator('#today details.hour[open]').count()).toBe(24);
    expect(await page.locator('#today details.hour').first().locator('ul.rows li').count()).toBe(4);
    expect(await page.locator('#tomorrow [data-missing]').textContent()).toContain(
      'ikke offentliggjort endnu',
    );
    expect(await page.locator('#chart svg path[data-date]').count()).toBe(1);
    // øre/kWh = DKK/MWh ÷ 10, in Danish notation
    const firstDk1 = (await api<Elprice>('/api/elprice?date=2025-10-25')).items.find(
      (i) => i.price_area === 'DK1',
    )!;
    expect(await page.locator('#today details.hour .avg').first().textContent()).toBe(
      DA.format(firstDk1.price_dkk / 10),
    );
  });

  it('the refresh button loads the published 25-hour tomorrow without a navigation', async () => {
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'still here'));
    served.fake.publication.delete('2025-10-26');
    served.app.clock.advance(5 * 60_000);
    await page.clock.setFixedTime(served.app.clock.now());
    await refreshed();
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await cards('tomorrow').count()).toBe(25);
    const labels = await page.locator('#tomorrow details.hour summary time').allTextContents();
    expect(labels.filter((l) => l.startsWith('02:00'))).toEqual(['02:00 +02:00', '02:00 +01:00']);
    expect(await page.locator('#chart svg path[data-date]').count()).toBe(2);
    await shoot(page, 'autumn');
  });

  it('refreshing on another day redisplays new numbers: a normal day and the 23-hour spring day', async () => {
    const oldFirst = await page.locator('#today details.hour .avg').first().textContent();
    served.app.clock.set('2026-03-28T12:00:00Z');
    await page.clock.setFixedTime(served.app.clock.now());
    await refreshed();
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await page.locator('#today h2 time').getAttribute('datetime')).toBe('2026-03-28');
    expect(await page.locator('#today h2').textContent()).toBe('I dag · lørdag 28. marts 2026');
    expect(await cards('today').count()).toBe(24);
    expect(await cards('tomorrow').count()).toBe(23);
    expect(await page.locator('#today details.hour .avg').first().textContent()).not.toBe(oldFirst);
  });

  it('marks the current hour at the top and on its card, keeping the title, switches and chart in view', async () => {
    // a fresh load, as a person opens the page: it must not scroll to the current hour
    await opened(page);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    for (const selector of ['h1', '#mode-spot', '#area-DK2', '#lang-en', '#chart svg'])
      expect(
        await page.locator(selector).evaluate((e) => e.getBoundingClientRect().bottom <= window.innerHeight),
        selector,
      ).toBe(true);
    // 2026-03-28 12:00 UTC is 13:00 in Denmark
    const now = page.locator('#today details.hour.now');
    expect(await now.count()).toBe(1);
    expect(await now.getAttribute('data-time')).toBe('2026-03-28T13:00:00+01:00');
    expect(await now.getAttribute('aria-current')).toBe('time');
    expect(await page.locator('details.hour.now').count()).toBe(1);
    const price = await now.locator('.avg').textContent();
    expect(await page.locator('#now').textContent()).toBe(`Nu, 13:00: ${price} øre/kWh`);
    expect(await page.locator('#now a').getAttribute('href')).toBe('#now-hour');
    expect(await now.getAttribute('id')).toBe('now-hour');
    expect(await page.locator('#status').textContent()).toBe('Opdateret 13.00.00');
    expect(await page.locator('#chart [data-now]').count()).toBe(1);
    // a phone's narrow chart labels every sixth hour: today 00..18, tomorrow (23 hours, no 02:00) the same
    const labels = await page.locator('#chart text[data-hour-label]').allTextContents();
    expect(labels).toEqual(['00', '06', '12', '18', '00', '06', '12', '18']);
    await shoot(page, 'spot');
  });

  it('puts the price axis on round steps of 1, 2 or 5 × 10^n, written the Danish way', async () => {
    const ticks = await page
      .locator('#chart text[data-tick]')
      .evaluateAll((ts) => ts.map((t) => ({ v: Number(t.getAttribute('data-tick')), text: t.textContent })));
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const step = ticks[1]!.v - ticks[0]!.v;
    expect(step / 10 ** Math.floor(Math.log10(step))).toBeOneOf([1, 2, 5]);
    for (const [i, { v, text }] of ticks.entries()) {
      expect(v).toBeCloseTo(ticks[0]!.v + i * step, 9);
      expect(Math.abs(Math.round(v / step) - v / step)).toBeLessThan(1e-9);
      expect(text).toBe(new Intl.NumberFormat('da-DK', { maximumFractionDigits: 2 }).format(v));
    }
  });

  it("draws the chart in the figure's own pixels, again when the window is resized", async () => {
    const sizes = () =>
      page.evaluate(() => [
        document.querySelector('#chart')!.clientWidth,
        Number(document.querySelector('#chart svg')!.getAttribute('width')),
      ]);
    const [figure, svg] = await sizes();
    expect(svg).toBe(figure);
    await page.setViewportSize({ width: 900, height: 844 });
    try {
      await page.waitForFunction(
        () => Number(document.querySelector('#chart svg')!.getAttribute('width')) > 600,
      );
      const [wide, wideSvg] = await sizes();
      expect(wideSvg).toBe(wide);
      // a wide chart labels every third hour: today 00..21, tomorrow (no 02:00) the same
      const labels = await page.locator('#chart text[data-hour-label]').allTextContents();
      expect(labels).toEqual([...Array(2)].flatMap(() => ['00', '03', '06', '09', '12', '15', '18', '21']));
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });

  it('gives the cards it has not drawn yet their drawn height, so the page does not jump on scrolling', async () => {
    for (const mode of ['#mode-total', '#mode-spot']) {
      await press(mode);
      const placeholders = await page.evaluate(() => document.documentElement.scrollHeight);
      const all = await page.addStyleTag({ content: 'details.hour { content-visibility: visible }' });
      const drawn = await page.evaluate(() => document.documentElement.scrollHeight);
      await all.evaluate((e) => (e as Element).remove());
      expect(Math.abs(placeholders - drawn) / drawn, mode).toBeLessThan(0.02);
    }
  });

  it('has a legend whose keys are the colours of the cards and the chart', async () => {
    const legend = page.locator('ul.legend li');
    expect((await legend.allTextContents()).map((t) => t.trim())).toEqual([
      'I dag',
      'I morgen',
      'Billigste 3 timer',
      'Nu',
      'Lav: dagens billigste fjerdedel',
      'Mellem',
      'Høj: dagens dyreste fjerdedel',
    ]);
    const style = (selector: string, property: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((e, p) => getComputedStyle(e).getPropertyValue(p), property);
    // [legend key, its property] beside [what it names, the property that shows it]
    const pairs = [
      ['.key.card.low', 'background-color', '#today details.hour.low', 'border-left-color'],
      ['.key.card.high', 'background-color', '#today details.hour.high', 'border-left-color'],
      ['.key.card.mid', 'background-color', '#today details.hour:not(.low):not(.high)', 'border-left-color'],
      ['.key.line.today', 'border-top-color', '#chart path.today', 'stroke'],
      ['.key.line.tomorrow', 'border-top-color', '#chart path.tomorrow', 'stroke'],
      ['.key.cheap', 'background-color', '#chart rect.cheap-window', 'fill'],
      ['.key.line.now', 'border-left-color', '#chart [data-now]', 'stroke'],
    ];
    for (const [key, keyProperty, named, property] of pairs)
      expect(await style(key!, keyProperty!), key).toBe(await style(named!, property!));
  });

  it("marks each day's cheapest 3 hours by spot price in the spot view, and says its spot average", async () => {
    for (const [section, date] of [
      ['today', '2026-03-28'],
      ['tomorrow', '2026-03-29'],
    ] as const) {
      const spot = await cheapestSpot(date);
      const marked = await page
        .locator(`#${section} details.hour[data-window]`)
        .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-time')));
      expect(marked).toEqual(spot.times);
      const summary = page.locator(`#${section} [data-window-summary]`);
      expect(await summary.getAttribute('data-window-summary')).toBe('spot');
      expect(await summary.textContent()).toContain(`spotpris ${DA.format(spot.average)} øre/kWh i snit`);
      expect(await page.locator(`#chart rect[data-window="${date}"]`).count()).toBe(1);
    }
  });

  it('switches to the all-in price incl. VAT, marks /api/cheapest’s hours, and remembers it across a reload', async () => {
    const consumer = await api<{ complete: boolean; items: { time_dk: string; total: number }[] }>(
      '/api/consumer-prices?date=2026-03-28&area=DK1',
    );
    expect(consumer.complete).toBe(true);
    const spotShown = await page.locator('#today details.hour .avg').first().textContent();
    await press('#mode-total');
    expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#unit').textContent()).toContain('alt inkl.');
    const shown = await page.locator('#today details.hour .avg').allTextContents();
    expect(shown).toEqual(consumer.items.map((i) => DA.format(i.total * 100)));
    expect(shown[0]).not.toBe(spotShown);
    expect(await page.locator('#today details.hour').first().locator('ul li').count()).toBe(7);
    expect(
      await page.locator('#today details.hour').first().locator('ul li span').first().textContent(),
    ).toBe('Spotpris');
    const w = await api<{ start_dk: string; end_dk: string; average_dkk_kwh: number; basis: string }>(
      '/api/cheapest?hours=3&date=2026-03-28&area=DK1',
    );
    expect(w.basis).toBe('total');
    const marked = await page
      .locator('#today details.hour[data-window]')
      .evaluateAll((c) => c.map((e) => e.getAttribute('data-time')));
    expect(marked[0]).toBe(w.start_dk);
    expect(Date.parse(marked[2]!) + HOUR).toBe(Date.parse(w.end_dk));
    expect(await page.locator('#today [data-window-summary]').textContent()).toBe(
      `Billigste 3 timer: ${w.start_dk.slice(11, 16)}–${w.end_dk.slice(11, 16)}, ${DA.format(w.average_dkk_kwh * 100)} øre/kWh i snit alt inkl.`,
    );
    expect(await page.evaluate(() => localStorage.getItem('satwatt.mode'))).toBe('total');
    await shoot(page, 'total');

    await opened(page);
    expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#today details.hour .avg').first().textContent()).toBe(shown[0]);
    await press('#mode-spot');
    expect(await page.locator('#today details.hour .avg').first().textContent()).toBe(spotShown);
  });

  it('without a grid company (null tariffs) shows the spot price in the all-in view and says what it needs', async () => {
    await page.route('**/api/consumer-prices?*', async (route) => {
      const real = await route.fetch();
      const body = (await real.json()) as { items: Record<string, unknown>[] };
      for (const item of body.items) Object.assign(item, { grid_tariff: null, vat: null, total: null });
      await route.fulfill({ response: real, json: body });
    });
    try {
      await press('#mode-total');
      await refreshed();
      const notice = page.locator('#today [data-notice="needsGrid"]');
      expect(await notice.textContent()).toBe(
        'Prisen alt inkl. kræver, at netselskabet er sat op. Her vises spotprisen.',
      );
      const spot = (await api<Elprice>('/api/elprice?date=2026-03-28')).items.filter(
        (i) => i.price_area === 'DK1',
      );
      expect(await page.locator('#today details.hour .avg').allTextContents()).toEqual(
        spot.map((i) => DA.format(i.price_dkk / 10)),
      );
      expect(await page.locator('#unit').textContent()).toContain('spotpris');
      expect(await page.locator('#today [data-window-summary]').getAttribute('data-window-summary')).toBe(
        'spot',
      );
      // shown as spot, each card lists its quarter hours as in the spot view
      const rows = await page
        .locator('#today details.hour')
        .first()
        .locator('ul li span:first-child')
        .allTextContents();
      expect(rows).toEqual(['00:00', '00:15', '00:30', '00:45']);
      await shoot(page, 'no-grid-company');
    } finally {
      await page.unroute('**/api/consumer-prices?*');
      await press('#mode-spot');
    }
  });

  it('switches the area to DK2 and back, loading that area', async () => {
    const day = await api<Elprice>('/api/elprice?date=2026-03-28');
    const dk2 = day.items.filter((i) => i.price_area === 'DK2').map((i) => DA.format(i.price_dkk / 10));
    const before = await loads();
    await page.click('#area-DK2');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.locator('#area-DK2').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#unit').textContent()).toMatch(/^DK2,/);
    expect(await page.locator('#today details.hour .avg').allTextContents()).toEqual(dk2);
    expect(await page.locator('#today details.hour.now').count()).toBe(1);
    await shoot(page, 'dk2');
    const again = await loads();
    await page.click('#area-DK1');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, again);
    expect(await page.locator('#area-DK1').getAttribute('aria-pressed')).toBe('true');
  });

  it('speaks English to a browser that prefers it, and Danish again by the switch, remembered', async () => {
    const english = await phone('en-GB');
    try {
      const p = english.page;
      await opened(p);
      expect(await p.locator('html').getAttribute('lang')).toBe('en');
      expect(await p.locator('h1 [data-t="heading"]').textContent()).toBe('Electricity prices');
      expect(await p.locator('#lang-en').getAttribute('aria-pressed')).toBe('true');
      expect(await p.locator('#status').textContent()).toBe('Updated 13:00:00');
      expect(await p.locator('#today h2').textContent()).toBe('Today · Saturday 28 March 2026');
      const en = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      const firstDk1 = (await api<Elprice>('/api/elprice?date=2026-03-28')).items.find(
        (i) => i.price_area === 'DK1',
      )!;
      expect(await p.locator('#today details.hour .avg').first().textContent()).toBe(
        en.format(firstDk1.price_dkk / 10),
      );
      expect(await p.locator('.switch').first().getAttribute('aria-label')).toBe('Price shown');
      await shoot(p, 'english');

      await press('#lang-da', p);
      expect(await p.locator('html').getAttribute('lang')).toBe('da');
      expect(await p.locator('h1 [data-t="heading"]').textContent()).toBe('Elpriser');
      expect(await p.locator('#today h2').textContent()).toBe('I dag · lørdag 28. marts 2026');
      expect(await p.locator('.switch').first().getAttribute('aria-label')).toBe('Vist pris');
      expect(await p.evaluate(() => localStorage.getItem('satwatt.lang'))).toBe('da');
      await opened(p);
      expect(await p.locator('h1 [data-t="heading"]').textContent()).toBe('Elpriser');
      expect(await p.locator('#status').textContent()).toBe('Opdateret 13.00.00');
    } finally {
      await english.context.close();
    }
    // and the Danish browser switched to English
    await press('#lang-en');
    expect(await page.locator('#tomorrow h2').textContent()).toBe('Tomorrow · Sunday 29 March 2026');
    await press('#lang-da');
  });

  it('runs under its strict Content-Security-Policy without a single console error, its modules cached for good', async () => {
    const res = await fetch(`${base}/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
    const html = await res.text();
    const main = /<script type="module" src="([^"]+)"/.exec(html)![1]!;
    const js = await fetch(base + main);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(await js.text()).toMatch(/^\/\/ @ts-check\n/);
    const stale = await fetch(`${base}/page/000000000000/main.js`);
    expect(stale.status).toBe(404);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    expect(consoleErrors.join('\n')).toBe('');
  });
});
