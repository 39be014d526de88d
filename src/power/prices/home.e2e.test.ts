import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DA,
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

beforeAll(async () => {
  // 12:00 in Denmark on the Saturday before the autumn change: tomorrow has 25 hours.
  home = await openHomeBrowser('2025-10-25T10:00:00Z');
  ({ page } = await home.phone('da-DK'));
});
afterAll(async () => {
  await home?.close();
});

const cards = (section: string) => page.locator(`#${section} details.hour`);
const opened = (p: Page) => openedAt(p, `${home.base}/`);
const refreshed = () => refreshedOn(page);
const press = (selector: string) => pressOn(page, selector);
const api = <T>(url: string) => home.served.app.call('GET', url).then((r) => r.json<T>());

describe('home page in Chromium: days, the current hour, the chart', () => {
  it('shows today as 24 open hour cards with quarter rows, and says in Danish that tomorrow is not published yet', async () => {
    home.served.fake.publication.set('2025-10-26', 'none');
    await opened(page);
    // the household's charges are known, so the page opens on the all-in price; the reader picks spot
    expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
    await press('#mode-spot');
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
    home.served.fake.publication.delete('2025-10-26');
    home.served.app.clock.advance(5 * 60_000);
    await page.clock.setFixedTime(home.served.app.clock.now());
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
    home.served.app.clock.set('2026-03-28T12:00:00Z');
    await page.clock.setFixedTime(home.served.app.clock.now());
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

  it('logged no script error and no Content-Security-Policy violation', () => {
    expect(home.consoleErrors.join('\n')).toBe('');
  });
});
