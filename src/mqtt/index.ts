import { ChainService } from '../btc/chain/service.js';
import { createLeadership } from '../btc/leadership.js';
import { MarketService } from '../btc/market/service.js';
import { PortfolioService } from '../btc/portfolio/service.js';
import type { AppContext, Feature } from '../context.js';
import { LOCK_KEYS } from '../db/lock-keys.js';
import { CostService } from '../power/costs/service.js';
import { PriceService } from '../power/prices/service.js';
import { SATWATT_VERSION } from '../shared/version.js';
import { FigureReader, type MqttSources } from './figures.js';
import { DEFAULT_MQTT_OPTIONS, MqttService, type MqttOptions } from './service.js';

export { DEFAULT_MQTT_OPTIONS, type MqttOptions } from './service.js';

/** The advisory lock whose holder publishes to the broker, when several processes share a database. */
export const MQTT_PUBLISHER_LOCK_KEY = LOCK_KEYS.mqttPublisher;

/** The service a feature of this process holds under `key`, if any does. */
function held<T>(features: Feature[], key: string, type: abstract new (...args: never[]) => T): T | null {
  for (const f of features) {
    const v: unknown = (f as unknown as Record<string, unknown>)[key];
    if (v instanceof type) return v;
  }
  return null;
}

/** What the configured services of this process answer: power, btc, both. */
export function sourcesOf(features: Feature[]): MqttSources {
  const prices = held(features, 'prices', PriceService);
  const costs = held(features, 'costs', CostService);
  return {
    power: prices && costs ? { prices, costs } : null,
    market: held(features, 'market', MarketService),
    portfolio: held(features, 'portfolio', PortfolioService),
    chain: held(features, 'chain', ChainService),
  };
}

/**
 * satwatt's figures as Home Assistant MQTT entities, from the services the other features of
 * this process built. Off (a disabled `mqtt` feed in /health) without MQTT_URL.
 */
export function createMqttFeature(
  ctx: AppContext,
  features: Feature[],
  options: Partial<MqttOptions> = {},
): Feature {
  const { broker, topicPrefix, discoveryPrefix, private: priv } = ctx.config.mqtt;
  const health = ctx.health.feed('mqtt', broker !== null);
  if (!broker) {
    health.detail = 'off: MQTT_URL is not set';
    return { name: 'mqtt' };
  }
  const log = ctx.log.child({ feature: 'mqtt' });
  const reader = new FigureReader(sourcesOf(features), { clock: ctx.clock, area: ctx.config.priceArea, log });
  const { leadership, feature: lock } = createLeadership(ctx, { key: MQTT_PUBLISHER_LOCK_KEY, name: 'mqtt' });
  const service = new MqttService(
    {
      clock: ctx.clock,
      log,
      health: ctx.health,
      database: ctx.database,
      shutdown: ctx.shutdown,
      broker,
      naming: { topicPrefix, discoveryPrefix, version: SATWATT_VERSION, private: priv },
      reader,
      leadership,
    },
    { ...DEFAULT_MQTT_OPTIONS, ...options },
  );
  return {
    name: 'mqtt',
    // the lock's first attempt is a database call; the broker is never waited for
    start: async () => {
      await lock.start?.();
      await service.start();
    },
    stop: async () => {
      await service.stop();
      await lock.stop?.();
    },
  };
}
