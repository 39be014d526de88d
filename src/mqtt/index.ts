import type { AppContext, Feature } from '../context.js';
import { SATWATT_VERSION } from '../shared/version.js';
import { FigureReader, type MqttSources } from './figures.js';
import { DEFAULT_MQTT_OPTIONS, MqttService, type MqttOptions } from './service.js';

export { DEFAULT_MQTT_OPTIONS, type MqttOptions } from './service.js';
export type { MqttSources } from './figures.js';

/**
 * satwatt's figures as Home Assistant MQTT entities, from the services this process runs
 * (`sources`), published by the holder of the publisher lock. Off (a disabled `mqtt` feed in
 * /health) without MQTT_URL.
 */
export function createMqttFeature(
  ctx: AppContext,
  sources: MqttSources,
  options: Partial<MqttOptions> = {},
): Feature {
  const { broker, topicPrefix, discoveryPrefix, private: priv } = ctx.config.mqtt;
  const health = ctx.health.feed('mqtt', broker !== null);
  if (!broker) {
    health.detail = 'off: MQTT_URL is not set';
    return { name: 'mqtt' };
  }
  const log = ctx.log.child({ feature: 'mqtt' });
  const reader = new FigureReader(sources, { clock: ctx.clock, area: ctx.config.priceArea, log });
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
    },
    { ...DEFAULT_MQTT_OPTIONS, ...options },
  );
  return {
    name: 'mqtt',
    // listeners only: the broker is never waited for
    start: () => service.start(),
    stop: () => service.stop(),
    jobs: service.jobs(),
  };
}
