import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges } from '../../../test/support/costs.js';

let fake: FakeEnergiDataService;
let app: TestApp;
let browser: Browser;
let page: Page;
let base: string;
const consoleErrors: string[] = [];

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  // 12:00 in Denmark on the Saturday before the autumn change: tomorrow has 25 hours.
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url },
    now: '2025-10-25T10:00:00Z',
  });
  // Energinet's charges (the fake's generated list), as the daily refresh loads them.
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
  base = await app.app.listen({ port: 0, host: '127.0.0.1' });
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
  // a browser far from Denmark: every time the page shows must still be Danish time
  page = await browser.newPage({ viewport: { width: 390, height: 844 }, timezoneId: 'America/Los_Angeles' });
  // The browser's clock follows the app's, so that "now" on the page is the app's current hour.
  await page.clock.setFixedTime(new Date('2025-10-25T10:00:00Z'));
  // A Content-Security-Policy violation or a script error shows up here.
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

/** Screenshots of a mode: the view scrolled to the current hour, and the top with switches and chart. */
async function shoot(name: string) {
  await page.screenshot({ path: `/tmp/power-${name}.png` });
  const y = await page.evaluate(() => window.scrollY);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `/tmp/power-${name}-top.png` });
  await page.evaluate((top) => window.scrollTo(0, top), y);
}

const cards = (section: string) => page.locator(`#${section} details.hour`);
const loads = () => page.evaluate(() => Number(document.body.dataset.loads ?? 0));

describe('home page in Chromium', () => {
  it('shows today as 24 open hour cards with quarter rows, and says tomorrow is not published yet', async () => {
    fake.publication.set('2025-10-26', 'none');
    await page.goto(base + '/');
    await page.waitForFunction(() => Number(document.body.dataset.loads ?? 0) >= 1);
    expect(await cards('today').count()).toBe(24);
    expect(await page.locator('#today details.hour[open]').count()).toBe(24);
    expect(await page.locator('#today details.hour').first().locator('ul.quarters li').count()).toBe(4);
    expect(await page.locator('#tomorrow [data-missing]').textContent()).toContain('not published yet');
    expect(await page.locator('#chart svg path[data-date]').count()).toBe(1);
    // øre/kWh = DKK/MWh ÷ 10, in Danish notation
    const api = (await app.call('GET', '/api/elprice?date=2025-10-25')).json<{
      items: { price_area: string; price_dkk: number }[];
    }>();
    const firstDk1 = api.items.find((i) => i.price_area === 'DK1')!;
    const shown = await page.locator('#today details.hour .avg').first().textContent();
    expect(shown).toBe(
      new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
        firstDk1.price_dkk / 10,
      ),
    );
  });

  it('the refresh button loads the published 25-hour tomorrow without a navigation', async () => {
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'still here'));
    fake.publication.delete('2025-10-26');
    app.clock.advance(5 * 60_000);
    await page.clock.setFixedTime(app.clock.now());
    const before = await loads();
    await page.click('#refresh');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await cards('tomorrow').count()).toBe(25);
    const labels = await page.locator('#tomorrow details.hour summary span:first-child').allTextContents();
    expect(labels.filter((l) => l.startsWith('02:00'))).toEqual(['02:00 +02:00', '02:00 +01:00']);
    expect(await page.locator('#chart svg path[data-date]').count()).toBe(2);
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-home-'));
    const file = path.join(dir, 'home.png');
    await page.screenshot({ path: file, fullPage: false });
    console.log(`home page screenshot: ${file}`);
  });

  it('refreshing on another day redisplays new numbers: a normal day and the 23-hour spring day', async () => {
    const oldFirst = await page.locator('#today details.hour .avg').first().textContent();
    app.clock.set('2026-03-28T12:00:00Z');
    await page.clock.setFixedTime(app.clock.now());
    const before = await loads();
    await page.click('#refresh');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await page.locator('#today h2').textContent()).toContain('2026-03-28');
    expect(await cards('today').count()).toBe(24);
    expect(await cards('tomorrow').count()).toBe(23);
    expect(await page.locator('#today details.hour .avg').first().textContent()).not.toBe(oldFirst);
  });

  it('marks the current hour, scrolled into view, and labels the hours on the chart axis', async () => {
    // 2026-03-28 12:00 UTC is 13:00 in Denmark
    const now = page.locator('#today details.hour.now');
    expect(await now.count()).toBe(1);
    expect(await now.getAttribute('data-time')).toBe('2026-03-28T13:00:00+01:00');
    expect(await now.getAttribute('aria-current')).toBe('time');
    expect(await page.locator('#status').textContent()).toBe('Updated 13.00.00');
    expect(await page.locator('details.hour.now').count()).toBe(1);
    const inView = await now.evaluate((e) => {
      const r = e.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);
    expect(await page.locator('#chart [data-now]').count()).toBe(1);
    const labels = await page.locator('#chart text[data-hour-label]').allTextContents();
    // today 00..21 every three hours, tomorrow (23 hours, no 02:00) 00, 03 (from 03:00+02:00), 06 .. 21
    expect(labels).toEqual([
      '00',
      '03',
      '06',
      '09',
      '12',
      '15',
      '18',
      '21',
      '00',
      '03',
      '06',
      '09',
      '12',
      '15',
      '18',
      '21',
    ]);
  });

  it('marks the cheapest 3-hour window of today and of tomorrow, as /api/cheapest finds it', async () => {
    for (const [section, date] of [
      ['today', '2026-03-28'],
      ['tomorrow', '2026-03-29'],
    ] as const) {
      const w = (await app.call('GET', `/api/cheapest?hours=3&date=${date}&area=DK1`)).json<{
        start_dk: string;
        end_dk: string;
        basis: string;
      }>();
      expect(w.basis).toBe('total');
      const marked = await page
        .locator(`#${section} details.hour[data-window]`)
        .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-time')));
      expect(marked).toHaveLength(3);
      expect(marked[0]).toBe(w.start_dk);
      expect(Date.parse(marked[2]!) + 3_600_000).toBe(Date.parse(w.end_dk));
      expect(await page.locator(`#${section} [data-window-summary]`).textContent()).toContain(
        `${w.start_dk.slice(11, 16)}–${w.end_dk.slice(11, 16)}`,
      );
      expect(await page.locator(`#chart rect[data-window="${date}"]`).count()).toBe(1);
    }
    await shoot('spot');
  });

  it('switches to the all-in price incl. VAT and remembers it across a reload', async () => {
    const fmt = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const consumer = (await app.call('GET', '/api/consumer-prices?date=2026-03-28&area=DK1')).json<{
      complete: boolean;
      items: { time_dk: string; total: number }[];
    }>();
    expect(consumer.complete).toBe(true);
    const spotShown = await page.locator('#today details.hour .avg').first().textContent();
    await page.click('#mode-total');
    expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#unit').textContent()).toContain('all-in');
    const shown = await page.locator('#today details.hour .avg').allTextContents();
    expect(shown).toEqual(consumer.items.map((i) => fmt.format(i.total * 100)));
    expect(shown[0]).not.toBe(spotShown);
    expect(await page.locator('#today details.hour').first().locator('ul li').count()).toBe(7);
    expect(await page.evaluate(() => localStorage.getItem('satwatt.mode'))).toBe('total');
    await shoot('total');

    const before = await loads();
    await page.reload();
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) >= 1 && n >= 0, before);
    expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#today details.hour .avg').first().textContent()).toBe(shown[0]);
    await page.click('#mode-spot');
    expect(await page.locator('#today details.hour .avg').first().textContent()).toBe(spotShown);
  });

  it('switches the area to DK2 and back, loading that area', async () => {
    const fmt = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const day = (await app.call('GET', '/api/elprice?date=2026-03-28')).json<{
      items: { price_area: string; price_dkk: number }[];
    }>();
    const dk2 = day.items.filter((i) => i.price_area === 'DK2').map((i) => fmt.format(i.price_dkk / 10));
    const before = await loads();
    await page.click('#area-DK2');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.locator('#area-DK2').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#unit').textContent()).toMatch(/^DK2,/);
    expect(await page.locator('#today details.hour .avg').allTextContents()).toEqual(dk2);
    expect(await page.locator('#today details.hour.now').count()).toBe(1);
    await shoot('dk2');
    const again = await loads();
    await page.click('#area-DK1');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, again);
    expect(await page.locator('#area-DK1').getAttribute('aria-pressed')).toBe('true');
  });

  it('runs under its strict Content-Security-Policy without a single console error', async () => {
    const res = await fetch(`${base}/`);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(consoleErrors.join('\n')).toBe('');
  });
});
