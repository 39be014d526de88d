import { FakeEloverblik } from './eloverblik.js';
import { FakeEnergiDataService } from './energidataservice.js';
import { startFakeFrankfurter } from './frankfurter.js';
import { FakeHomeAssistant } from './home-assistant.js';
import type { FakeHttpServer } from './http.js';
import { FakeKrakenOhlc } from './kraken-ohlc.js';
import { FakeKraken } from './kraken-ws.js';
import { FakeStrike, STRIKE_KEY } from './strike.js';

export interface AllFakes {
  eds: FakeEnergiDataService;
  frankfurter: FakeHttpServer;
  krakenWs: FakeKraken;
  krakenOhlc: FakeKrakenOhlc;
  strike: FakeStrike;
  eloverblik: FakeEloverblik;
  /** Home Assistant, taking the statistics (HA_URL) when the feeds are on. */
  ha: FakeHomeAssistant;
  /** Every fake HTTP server, for fault injection across providers. */
  http: FakeHttpServer[];
  /** The environment that points satwatt at these fakes, feeds on or off as asked. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Every provider, faked on 127.0.0.1 with healthy defaults, for tests and scripts that run the whole service. */
export async function startAllFakes(opts: { now: Date; feeds?: boolean }): Promise<AllFakes> {
  const today = opts.now.toISOString().slice(0, 10);
  const [eds, frankfurter, krakenWs, krakenOhlc, strike, eloverblik, ha] = await Promise.all([
    FakeEnergiDataService.start(),
    startFakeFrankfurter({ latest: today }),
    FakeKraken.start(),
    FakeKrakenOhlc.start(Math.floor(opts.now.getTime() / 1000)),
    FakeStrike.start(),
    FakeEloverblik.start(),
    FakeHomeAssistant.start(),
  ]);
  strike.now = () => opts.now;
  const on = opts.feeds ? 'true' : 'false';
  const http = [eds.server, frankfurter, krakenOhlc.server, strike.http, eloverblik.server];
  return {
    eds,
    frankfurter,
    krakenWs,
    krakenOhlc,
    strike,
    eloverblik,
    ha,
    http,
    env: {
      PRICE_FEED_URL: eds.url,
      RATES_FEED_URL: frankfurter.url,
      SPOT_FEED_URL: krakenWs.url,
      OHLC_FEED_URL: krakenOhlc.url,
      QUOTE_FEED_URL: strike.url,
      METERING_FEED_URL: eloverblik.url,
      STRIKE_API_KEY: STRIKE_KEY,
      METERING_TOKEN: eloverblik.refreshToken,
      SPOT_FEED_ENABLED: on,
      OHLC_FEED_ENABLED: on,
      QUOTE_FEED_ENABLED: on,
      RATES_FEED_ENABLED: on,
      PRICE_FEED_ENABLED: on,
      CO2_FEED_ENABLED: on,
      METERING_SYNC_ENABLED: on,
      HA_URL: opts.feeds ? ha.url : '',
      HA_TOKEN: opts.feeds ? ha.token : '',
    },
    close: async () => {
      await krakenWs.close();
      await ha.close();
      await Promise.all(http.map((s) => s.close()));
    },
  };
}
