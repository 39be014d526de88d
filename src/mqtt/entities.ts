/**
 * The entities satwatt offers Home Assistant, and their discovery configs, pure. Units, device
 * and state classes follow Home Assistant's sensor rules: `monetary` takes an ISO 4217 currency
 * code and only the state class `total`; a price per kWh or per BTC is no amount of money, so it
 * is a `measurement` without a device class (as Home Assistant's own price integrations do);
 * `timestamp` has neither unit nor state class.
 */

export type Component = 'sensor' | 'binary_sensor' | 'number';

export interface Entity {
  /** The unique_id, also the object id of the discovery topic. */
  id: string;
  component: Component;
  name: string;
  unit?: string;
  deviceClass?: string;
  stateClass?: 'measurement' | 'total';
  precision?: number;
  icon?: string;
  /** A diagnostic entity (the feeds), shown apart from the figures. */
  diagnostic?: boolean;
  /** JSON attributes on a topic of their own. */
  attributes?: boolean;
  /** The state is `{"value", "last_reset"}`: a total that starts again every period. */
  lastReset?: boolean;
  /** The household's own figure: published only with MQTT_PRIVATE. */
  private?: boolean;
  /** A number Home Assistant sets through `<prefix>/<object>/set`. */
  number?: { min: number; max: number; step: number };
}

const PER_KWH = { unit: 'DKK/kWh', stateClass: 'measurement', precision: 2 } as const;
const BTC_PRICE = { stateClass: 'measurement', precision: 0, icon: 'mdi:bitcoin' } as const;
const MONEY = { deviceClass: 'monetary', stateClass: 'total', precision: 2 } as const;

export const SPOT_PRICE: Entity = {
  id: 'satwatt_spot_price',
  component: 'sensor',
  name: 'Spot price',
  ...PER_KWH,
  icon: 'mdi:transmission-tower',
  attributes: true,
};
export const CONSUMER_PRICE: Entity = {
  id: 'satwatt_consumer_price',
  component: 'sensor',
  name: 'Consumer price',
  ...PER_KWH,
  icon: 'mdi:flash',
  attributes: true,
};
export const CHEAPEST_START: Entity = {
  id: 'satwatt_cheapest_3h_start',
  component: 'sensor',
  name: 'Cheapest 3 h start',
  deviceClass: 'timestamp',
  icon: 'mdi:clock-start',
};
export const CHEAPEST_PRICE: Entity = {
  id: 'satwatt_cheapest_3h_price',
  component: 'sensor',
  name: 'Cheapest 3 h price',
  ...PER_KWH,
  icon: 'mdi:cash-clock',
};
export const TOMORROW_PUBLISHED: Entity = {
  id: 'satwatt_tomorrow_published',
  component: 'binary_sensor',
  name: 'Tomorrow published',
  icon: 'mdi:calendar-arrow-right',
};
export const BTC_EUR: Entity = {
  id: 'satwatt_btc_price_eur',
  component: 'sensor',
  name: 'BTC price EUR',
  unit: 'EUR',
  ...BTC_PRICE,
};
export const BTC_DKK: Entity = {
  id: 'satwatt_btc_price_dkk',
  component: 'sensor',
  name: 'BTC price DKK',
  unit: 'DKK',
  ...BTC_PRICE,
};
export const BTC_USD: Entity = {
  id: 'satwatt_btc_price_usd',
  component: 'sensor',
  name: 'BTC price USD',
  unit: 'USD',
  ...BTC_PRICE,
};
export const QUOTE_SATS: Entity = {
  id: 'satwatt_quote_sats',
  component: 'sensor',
  name: 'Quote sats',
  unit: 'sats',
  stateClass: 'measurement',
  precision: 0,
  icon: 'mdi:bitcoin',
};
export const BROKER_PREMIUM: Entity = {
  id: 'satwatt_broker_premium',
  component: 'sensor',
  name: 'Broker premium',
  unit: '%',
  stateClass: 'measurement',
  precision: 2,
  icon: 'mdi:percent',
};
export const PORTFOLIO_VALUE: Entity = {
  id: 'satwatt_portfolio_value_eur',
  component: 'sensor',
  name: 'Portfolio value EUR',
  unit: 'EUR',
  ...MONEY,
  private: true,
};
export const PORTFOLIO_SATS: Entity = {
  id: 'satwatt_portfolio_sats',
  component: 'sensor',
  name: 'Portfolio sats',
  unit: 'sats',
  stateClass: 'total',
  precision: 0,
  icon: 'mdi:bitcoin',
  private: true,
};
export const UNREALIZED_PNL: Entity = {
  id: 'satwatt_unrealized_pnl_eur',
  component: 'sensor',
  name: 'Unrealized P&L EUR',
  unit: 'EUR',
  ...MONEY,
  private: true,
};
/**
 * Metering arrives a day or more late: the last day metered whole, named in its attributes. Its
 * id keeps the name it had as "yesterday", so existing dashboards and automations keep it.
 */
export const COST_YESTERDAY: Entity = {
  id: 'satwatt_electricity_cost_yesterday',
  component: 'sensor',
  name: 'Electricity cost last metered day',
  unit: 'DKK',
  ...MONEY,
  lastReset: true,
  attributes: true,
  private: true,
};
export const COST_MONTH: Entity = {
  id: 'satwatt_electricity_cost_month',
  component: 'sensor',
  name: 'Electricity cost this month',
  unit: 'DKK',
  ...MONEY,
  lastReset: true,
  attributes: true,
  private: true,
};

export const POWER_ENTITIES = [
  SPOT_PRICE,
  CONSUMER_PRICE,
  CHEAPEST_START,
  CHEAPEST_PRICE,
  TOMORROW_PUBLISHED,
];
export const BTC_ENTITIES = [BTC_EUR, BTC_DKK, BTC_USD];
export const QUOTE_ENTITIES = [QUOTE_SATS, BROKER_PREMIUM];
export const PORTFOLIO_ENTITIES = [PORTFOLIO_VALUE, PORTFOLIO_SATS, UNREALIZED_PNL];
export const COST_ENTITIES = [COST_YESTERDAY, COST_MONTH];
export const PRIVATE_ENTITIES = [...PORTFOLIO_ENTITIES, ...COST_ENTITIES];

/**
 * One sensor per watched wallet: the sats the chain holds (unconfirmed included) beyond what the
 * ledger records, below zero when it holds fewer (docs/chain.md). The household's own figure.
 */
export function chainDifferenceEntity(wallet: number, name: string): Entity {
  return {
    id: `satwatt_chain_difference_wallet_${wallet}`,
    component: 'sensor',
    name: `Chain difference ${name}`,
    unit: 'sats',
    stateClass: 'measurement',
    precision: 0,
    icon: 'mdi:scale-unbalanced',
    private: true,
  };
}

/** One binary sensor per feed of /health: on means a problem. */
export function feedEntity(feed: string): Entity {
  const slug = feed.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return {
    id: `satwatt_feed_${slug}`,
    component: 'binary_sensor',
    name: `Feed ${feed}`,
    deviceClass: 'problem',
    diagnostic: true,
  };
}

export interface Naming {
  topicPrefix: string;
  discoveryPrefix: string;
  version: string;
}

const objectOf = (e: Entity) => e.id.replace(/^satwatt_/, '');

export const availabilityTopic = (n: Naming) => `${n.topicPrefix}/status`;
/** Where Home Assistant announces itself (its birth message, `online`). */
export const birthTopic = (n: Naming) => `${n.discoveryPrefix}/status`;
export const stateTopic = (n: Naming, e: Entity) => `${n.topicPrefix}/${objectOf(e)}/state`;
export const attributesTopic = (n: Naming, e: Entity) => `${n.topicPrefix}/${objectOf(e)}/attributes`;
export const commandTopic = (n: Naming, e: Entity) => `${n.topicPrefix}/${objectOf(e)}/set`;
export const discoveryTopic = (n: Naming, e: Entity) =>
  `${n.discoveryPrefix}/${e.component}/satwatt/${e.id}/config`;

/** The retained discovery payload of one entity (single-component discovery). */
export function discoveryConfig(n: Naming, e: Entity): Record<string, unknown> {
  const config: Record<string, unknown> = {
    name: e.name,
    unique_id: e.id,
    default_entity_id: `${e.component}.${e.id}`,
    state_topic: stateTopic(n, e),
    availability_topic: availabilityTopic(n),
    payload_available: 'online',
    payload_not_available: 'offline',
    device: {
      identifiers: ['satwatt'],
      name: 'satwatt',
      manufacturer: 'satwatt',
      model: 'satwatt',
      sw_version: n.version,
    },
    origin: { name: 'satwatt', sw_version: n.version },
  };
  if (e.component === 'binary_sensor') {
    config.payload_on = 'ON';
    config.payload_off = 'OFF';
  }
  if (e.number) {
    const { min, max, step } = e.number;
    Object.assign(config, { command_topic: commandTopic(n, e), min, max, step, mode: 'box' });
  }
  if (e.unit) config.unit_of_measurement = e.unit;
  if (e.deviceClass) config.device_class = e.deviceClass;
  if (e.stateClass) config.state_class = e.stateClass;
  if (e.precision !== undefined) config.suggested_display_precision = e.precision;
  if (e.icon) config.icon = e.icon;
  if (e.diagnostic) config.entity_category = 'diagnostic';
  if (e.attributes) config.json_attributes_topic = attributesTopic(n, e);
  if (e.lastReset) {
    config.value_template = '{{ value_json.value }}';
    config.last_reset_value_template = '{{ value_json.last_reset }}';
  }
  return config;
}
