import { FakeEnergiDataService, RADIUS_GLN, radiusTariffRecords } from '../fakes/energidataservice.js';
import { startTestApp, type TestApp } from './app.js';
import { refreshCharges } from './costs.js';

export interface ServedPricePage {
  /** The page's address, `http://127.0.0.1:<port>/`. */
  url: string;
  app: TestApp;
  fake: FakeEnergiDataService;
  close(): Promise<void>;
}

/**
 * The home page served over a real socket with fixed data: the fake Energi Data Service's prices,
 * Radius's grid tariff and Energinet's charges, the app's clock at `now` (today's and tomorrow's
 * prices published). Without `gridCompany` no grid company applies, so no all-in price is known.
 */
export async function servePricePage(
  now = '2025-10-25T10:00:00Z',
  opts: { gridCompany?: boolean } = {},
): Promise<ServedPricePage> {
  const fake = await FakeEnergiDataService.start();
  const env: Record<string, string> = { PRICE_FEED_URL: fake.url };
  if (opts.gridCompany !== false) env.GRID_COMPANY_GLN = RADIUS_GLN;
  const app = await startTestApp({ env, now });
  try {
    fake.tariffs = radiusTariffRecords();
    await refreshCharges(app, fake);
    const base = await app.app.listen({ port: 0, host: '127.0.0.1' });
    return {
      url: `${base}/`,
      app,
      fake,
      close: async () => {
        await app.close();
        await fake.close();
      },
    };
  } catch (e) {
    await app.close();
    await fake.close();
    throw e;
  }
}
