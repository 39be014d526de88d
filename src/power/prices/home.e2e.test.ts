import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEnergiDataService } from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';

let fake: FakeEnergiDataService;
let app: TestApp;
let browser: Browser;
let page: Page;
let base: string;
const consoleErrors: string[] = [];

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  // 12:00 in Denmark on the Saturday before the autumn change: tomorrow has 25 hours.
  app = await startTestApp({ env: { PRICE_FEED_URL: fake.url }, now: '2025-10-25T10:00:00Z' });
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
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
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
    const before = await loads();
    await page.click('#refresh');
    await page.waitForFunction((n) => Number(document.body.dataset.loads ?? 0) > n, before);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await page.locator('#today h2').textContent()).toContain('2026-03-28');
    expect(await cards('today').count()).toBe(24);
    expect(await cards('tomorrow').count()).toBe(23);
    expect(await page.locator('#today details.hour .avg').first().textContent()).not.toBe(oldFirst);
  });

  it('runs under its strict Content-Security-Policy without a single console error', async () => {
    const res = await fetch(`${base}/`);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(consoleErrors.join('\n')).toBe('');
  });
});
