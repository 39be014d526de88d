import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openHomeBrowser,
  opened as openedAt,
  press,
  type Elprice,
  type HomeBrowser,
} from '../../../test/support/home-page.js';

// 18:20 in Denmark on a Tuesday in January: the grid company's evening peak, today's cheapest
// hours long over, tomorrow's prices published.
const NOW = '2026-01-20T17:20:00Z';
const TODAY = '2026-01-20';
const TOMORROW = '2026-01-21';

let withCharges: HomeBrowser;
let spotOnly: HomeBrowser;

beforeAll(async () => {
  [withCharges, spotOnly] = await Promise.all([
    openHomeBrowser(NOW),
    openHomeBrowser(NOW, { gridCompany: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([withCharges?.close(), spotOnly?.close()]);
});

interface Window {
  start_dk: string;
  end_dk: string;
  average_dkk_kwh: number;
  basis: 'total' | 'spot';
}
interface Consumer {
  items: { time_dk: string; total: number | null; supplier_markup: number }[];
}
const api = <T>(home: HomeBrowser, url: string) => home.served.app.call('GET', url).then((r) => r.json<T>());

const number = (lang: 'da' | 'en', v: number) =>
  new Intl.NumberFormat(lang === 'da' ? 'da-DK' : 'en-GB', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(v);

/** The headline as it must read, from the API's own answers (the oracle) and the words of each language. */
async function expected(home: HomeBrowser, lang: 'da' | 'en', charges: boolean) {
  const next = await api<Window>(home, '/api/cheapest?minutes=180&area=DK1');
  const nowHour = `${TODAY}T18:00:00+01:00`;
  const price = charges
    ? (await api<Consumer>(home, `/api/consumer-prices?date=${TODAY}&area=DK1`)).items.find(
        (i) => i.time_dk === nowHour,
      )!.total! * 100
    : (await api<Elprice>(home, `/api/elprice?date=${TODAY}`)).items.find(
        (i) => i.time_dk === nowHour && i.price_area === 'DK1',
      )!.price_dkk / 10;
  const [from, to] = [next.start_dk.slice(11, 16), next.end_dk.slice(11, 16)];
  const avg = number(lang, next.average_dkk_kwh * 100);
  return {
    next,
    now:
      lang === 'da'
        ? `Nu, 18:00: ${number(lang, price)} øre/kWh`
        : `Now, 18:00: ${number(lang, price)} øre/kWh`,
    // the window's price is the one shown (all-in with the charges, else spot): it goes unnamed
    window:
      lang === 'da'
        ? `Billigst næste gang (3 timer): i morgen ${from}–${to}, ${avg} øre/kWh i snit`
        : `Cheapest next (3 hours): tomorrow ${from}–${to}, ${avg} øre/kWh on average`,
    earlier:
      lang === 'da' ? 'Tidligere i dag: 00:00–18:00 (18 timer)' : 'Earlier today: 00:00–18:00 (18 hours)',
  };
}

const NOTES = {
  da: [
    'Heri er leverandørens tillæg 0 øre/kWh: intet tillæg er sat op.',
    'Husstandens tariffer og afgifter kendes ikke (intet netselskab sat op): her er spotprisen.',
  ],
  en: [
    'This includes a supplier markup of 0 øre/kWh: no markup is configured.',
    "The household's tariffs and charges are not known (no grid company configured): this is the spot price.",
  ],
};

/** The sum of the page's layout shifts so far (CLS's raw material): 0 when nothing moved. */
const layoutShift = (p: Page) =>
  p.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) =>
          resolve(list.getEntries().reduce((sum, e) => sum + (e as unknown as { value: number }).value, 0)),
        ).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve(0), 300);
      }),
  );

/** Whether each element lies wholly inside the window as the page opened, unscrolled. */
const inView = (p: Page, selectors: string[]) =>
  p.evaluate(
    (ss) =>
      ss.map((s) => {
        const e = document.querySelector(s);
        if (!e) return `${s}: missing`;
        const r = e.getBoundingClientRect();
        const ok =
          r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
        return ok
          ? `${s}: in view`
          : `${s}: at ${Math.round(r.top)}–${Math.round(r.bottom)} of ${window.innerHeight}`;
      }),
    selectors,
  );

describe('home page in Chromium: it leads with what the household pays', () => {
  it("is at a time after today's cheapest hours, with tomorrow's cheapest window ahead (the premise)", async () => {
    for (const [home, basis] of [
      [withCharges, 'total'],
      [spotOnly, 'spot'],
    ] as const) {
      const today = await api<Window>(home, `/api/cheapest?hours=3&date=${TODAY}&area=DK1`);
      expect(today.basis).toBe(basis);
      expect(Date.parse(today.end_dk)).toBeLessThanOrEqual(Date.parse(NOW));
      const next = await api<Window>(home, '/api/cheapest?minutes=180&area=DK1');
      expect(next.basis).toBe(basis);
      expect(next.start_dk.slice(0, 10)).toBe(TOMORROW);
    }
  });

  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ] as const)
    for (const lang of ['da', 'en'] as const)
      for (const charges of [true, false])
        it(`at ${width} px in ${lang === 'da' ? 'Danish' : 'English'}, ${charges ? 'with' : 'without'} the household's charges: the price now, the next window, the past folded, all in view`, async () => {
          const home = charges ? withCharges : spotOnly;
          const { context, page } = await home.phone(lang === 'da' ? 'da-DK' : 'en-GB', { width, height });
          try {
            await openedAt(page, `${home.base}/`);
            const want = await expected(home, lang, charges);
            // opens on the all-in price when the charges are known, else on spot
            expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe(String(charges));
            expect(await page.locator('#now').textContent()).toBe(want.now);
            expect(await page.locator('#next').textContent()).toBe(want.window);
            expect(await page.locator('#next').getAttribute('data-basis')).toBe(want.next.basis);
            // the supplier markup of 0 is said where the all-in price is shown; without charges, that it is spot
            if (charges) {
              const consumer = await api<Consumer>(home, `/api/consumer-prices?date=${TODAY}&area=DK1`);
              expect(consumer.items.every((i) => i.supplier_markup === 0)).toBe(true);
            }
            expect(await page.locator('#note').getAttribute('data-note')).toBe(
              charges ? 'markupZero' : 'chargesUnknown',
            );
            expect(await page.locator('#note').textContent()).toBe(NOTES[lang][charges ? 0 : 1]);
            expect(await page.locator('#note').isVisible()).toBe(true);
            // today's past hours are folded away with today's (past) cheapest hours; the current hour comes first
            const past = page.locator('#today details.past');
            expect(await past.getAttribute('open')).toBeNull();
            expect(await past.locator('summary').first().textContent()).toBe(want.earlier);
            expect(await past.locator('details.hour').count()).toBe(18);
            expect(await past.locator('details.hour').first().isVisible()).toBe(false);
            expect(await past.locator('[data-window-summary]').count()).toBe(1);
            const shown = page.locator('#today > .cards > details.hour');
            expect(await shown.count()).toBe(6);
            expect(await shown.first().getAttribute('data-time')).toBe(`${TODAY}T18:00:00+01:00`);
            expect(await shown.first().getAttribute('class')).toContain('now');
            // nothing moved when the data came: the headline's lines were kept free for it (in
            // English the script relabels the Danish document, whose switches and legend then move)
            if (lang === 'da') expect(await layoutShift(page)).toBeLessThan(0.005);
            // the headline, the chart and tomorrow's window in it, without scrolling
            expect(await page.evaluate(() => window.scrollY)).toBe(0);
            const parts = [
              'h1',
              '#now',
              '#next',
              '#note',
              '#chart svg',
              `#chart rect[data-window="${TOMORROW}"]`,
            ];
            expect(await inView(page, parts)).toEqual(parts.map((s) => `${s}: in view`));
            await page.screenshot({
              path: `/tmp/power-lead-${width}-${lang}-${charges ? 'charges' : 'spot'}.png`,
            });
          } finally {
            await context.close();
          }
        });

  it('keeps the price a reader chose over the all-in default, across a reload', async () => {
    const { context, page } = await withCharges.phone('da-DK');
    try {
      await openedAt(page, `${withCharges.base}/`);
      expect(await page.locator('#mode-total').getAttribute('aria-pressed')).toBe('true');
      await press(page, '#mode-spot');
      await openedAt(page, `${withCharges.base}/`);
      expect(await page.locator('#mode-spot').getAttribute('aria-pressed')).toBe('true');
      const spot = (await api<Elprice>(withCharges, `/api/elprice?date=${TODAY}`)).items.find(
        (i) => i.time_dk === `${TODAY}T18:00:00+01:00` && i.price_area === 'DK1',
      )!.price_dkk;
      expect(await page.locator('#now').textContent()).toBe(`Nu, 18:00: ${number('da', spot / 10)} øre/kWh`);
      expect(await page.locator('#note').isVisible()).toBe(false);
      // the window from now is ranked on the all-in price, which is not the one shown: it says so
      expect(await page.locator('#next').textContent()).toMatch(/ øre\/kWh i snit alt inkl\.$/);
    } finally {
      await context.close();
    }
  });

  it('logged no script error and no Content-Security-Policy violation', () => {
    expect([...withCharges.consoleErrors, ...spotOnly.consoleErrors].join('\n')).toBe('');
  });
});
