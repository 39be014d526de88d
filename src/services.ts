import { btcService, type BtcServices } from './btc/index.js';
import type { ServiceName } from './config.js';
import type { AppContext, Composition, Feature } from './context.js';
import type { MqttSources } from './mqtt/index.js';
import { powerService, type PowerServices } from './power/index.js';

/** The services of a process by name, each null when the process does not run it. */
export interface ServiceRecord {
  btc: BtcServices | null;
  power: PowerServices | null;
}

/**
 * How each service a process can run is built: its features and its part of the record (null
 * for a composition that answers the other features nothing, as a test's may).
 */
export type Services = { [K in ServiceName]: (ctx: AppContext) => Composition<ServiceRecord[K]> };

/** The services as a process runs them; tests and benchmarks pass their own compositions. */
export const SERVICES: Services = { btc: (ctx) => btcService(ctx), power: (ctx) => powerService(ctx) };

/** Builds the configured services in their order: each one's features, and the record of them all. */
export function composeServices(
  ctx: AppContext,
  services: Services,
): { record: ServiceRecord; features: Feature[][] } {
  const record: ServiceRecord = { btc: null, power: null };
  const build = <K extends ServiceName>(name: K): Feature[] => {
    const made = services[name](ctx);
    record[name] = made.services;
    return made.features;
  };
  return { record, features: ctx.config.services.map(build) };
}

/** What MQTT publishes, as far as the process runs it. */
export function mqttSources({ btc, power }: ServiceRecord): MqttSources {
  return {
    power: power && { prices: power.prices, costs: power.costs, windows: power.windows, co2: power.co2 },
    market: btc?.market ?? null,
    portfolio: btc?.portfolio ?? null,
    chain: btc?.chain ?? null,
  };
}
