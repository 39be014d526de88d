import { FakeEloverblik } from './eloverblik.js';
import { startFakeFrankfurter } from './frankfurter.js';
import type { FakeHttpServer } from './http.js';
import { FakeKrakenOhlc } from './kraken-ohlc.js';

export interface AllFakes {
  frankfurter: FakeHttpServer;
  krakenOhlc: FakeKrakenOhlc;
  eloverblik: FakeEloverblik;
  /** Every fake HTTP server, for fault injection across providers. */
  http: FakeHttpServer[];
  /** The environment that points satwatt at these fakes, feeds on or off as asked. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Every provider, faked on 127.0.0.1 with healthy defaults, for tests and scripts that run the whole service. */
export async function startAllFakes(opts: { now: Date; feeds?: boolean }): Promise<AllFakes> {
  const today = opts.now.toISOString().slice(0, 10);
  const [frankfurter, krakenOhlc, eloverblik] = await Promise.all([
    startFakeFrankfurter({ latest: today }),
    FakeKrakenOhlc.start(Math.floor(opts.now.getTime() / 1000)),
    FakeEloverblik.start(),
  ]);
  const on = opts.feeds ? 'true' : 'false';
  const http = [frankfurter, krakenOhlc.server, eloverblik.server];
  return {
    frankfurter,
    krakenOhlc,
    eloverblik,
    http,
    env: {
      RATES_FEED_URL: frankfurter.url,
      OHLC_FEED_URL: krakenOhlc.url,
      METERING_FEED_URL: eloverblik.url,
      METERING_TOKEN: eloverblik.refreshToken,
      OHLC_FEED_ENABLED: on,
      RATES_FEED_ENABLED: on,
    },
    close: async () => {
      await Promise.all(http.map((s) => s.close()));
    },
  };
}
