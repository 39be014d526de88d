import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DA,
  loads,
  openHomeBrowser,
  opened as openedAt,
  press as pressOn,
  refreshed as refreshedOn,
  shoot,
  type Elprice,
  type HomeBrowser,
} from '../../../test/support/home-page.js';

let home: HomeBrowser;
let page: Page;
const HOUR = 3_600_000;

beforeAll(async () => {
  // 13:00 in Denmark on the Saturday before the spring change: tomorrow has 23 hours.
  home = await openHomeBrowser('2026-03-28T12:00:00Z');
  ({ page } = await home.phone('da-DK'));
  await opened(page);
  // the page opens on the all-in price (the household's charges are known): these tests start from spot
  await press('#mode-spot');
});
afterAll(async () => {
  await home?.close();
});

const opened = (p: Page) => openedAt(p, `${home.base}/`);
const refreshed = () => refreshedOn(page);
const press = (selector: string, p = page) => pressOn(p, selector);
const api = <T>(url: string) => home.served.app.call('GET', url).then((r) => r.json<T>());

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

describe('home page in Chromium: the views, the switches and the rules it runs under', () => {
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
    const before = await loads(page);
    await page.click('#area-DK2');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.locator('#area-DK2').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#unit').textContent()).toMatch(/^DK2,/);
    expect(await page.locator('#today details.hour .avg').allTextContents()).toEqual(dk2);
    expect(await page.locator('#today details.hour.now').count()).toBe(1);
    await shoot(page, 'dk2');
    const again = await loads(page);
    await page.click('#area-DK1');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, again);
    expect(await page.locator('#area-DK1').getAttribute('aria-pressed')).toBe('true');
  });

  it('speaks English to a browser that prefers it, and Danish again by the switch, remembered', async () => {
    const english = await home.phone('en-GB');
    try {
      const p = english.page;
      await opened(p);
      expect(await p.locator('html').getAttribute('lang')).toBe('en');
      expect(await p.locator('h1 [data-t="heading"]').textContent()).toBe('Electricity prices');
      expect(await p.locator('#lang-en').getAttribute('aria-pressed')).toBe('true');
      expect(await p.locator('#status').textContent()).toBe('Updated 13:00:00');
      expect(await p.locator('#today h2').textContent()).toBe('Today · Saturday 28 March 2026');
      const en = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      // a browser that chose no price opens on the all-in price, the household's charges being known
      const first = (
        await api<{ items: { total: number }[] }>('/api/consumer-prices?date=2026-03-28&area=DK1')
      ).items[0]!;
      expect(await p.locator('#today details.hour .avg').first().textContent()).toBe(
        en.format(first.total * 100),
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
    const res = await fetch(`${home.base}/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
    const html = await res.text();
    const main = /<script type="module" src="([^"]+)"/.exec(html)![1]!;
    const js = await fetch(home.base + main);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(await js.text()).toMatch(/^\/\/ @ts-check\n/);
    const stale = await fetch(`${home.base}/page/000000000000/main.js`);
    expect(stale.status).toBe(404);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    expect(home.consoleErrors.join('\n')).toBe('');
  });
});
