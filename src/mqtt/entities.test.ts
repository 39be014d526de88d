import { describe, expect, it } from 'vitest';
import * as E from './entities.js';

const naming: E.Naming = { topicPrefix: 'satwatt', discoveryPrefix: 'homeassistant', version: '0.1.0' };
const ALL = [
  ...E.POWER_ENTITIES,
  ...E.BTC_ENTITIES,
  ...E.QUOTE_ENTITIES,
  ...E.PORTFOLIO_ENTITIES,
  ...E.COST_ENTITIES,
  E.feedEntity('spot'),
];

describe('the entities', () => {
  it('are exactly the named unique ids, private ones marked', () => {
    expect(ALL.map((e) => e.id)).toEqual([
      'satwatt_spot_price',
      'satwatt_consumer_price',
      'satwatt_cheapest_3h_start',
      'satwatt_cheapest_3h_price',
      'satwatt_tomorrow_published',
      'satwatt_btc_price_eur',
      'satwatt_btc_price_dkk',
      'satwatt_btc_price_usd',
      'satwatt_quote_sats',
      'satwatt_broker_premium',
      'satwatt_portfolio_value_eur',
      'satwatt_portfolio_sats',
      'satwatt_unrealized_pnl_eur',
      'satwatt_electricity_cost_yesterday',
      'satwatt_electricity_cost_month',
      'satwatt_feed_spot',
    ]);
    expect(ALL.filter((e) => e.private).map((e) => e.id)).toEqual(E.PRIVATE_ENTITIES.map((e) => e.id));
    expect(E.PRIVATE_ENTITIES).toHaveLength(5);
  });

  it('follow Home Assistant’s sensor rules for units, device and state classes', () => {
    for (const e of ALL) {
      const c = E.discoveryConfig(naming, e);
      if (e.component === 'binary_sensor') {
        expect(c, e.id).not.toHaveProperty('unit_of_measurement');
        expect(c, e.id).not.toHaveProperty('state_class');
      }
      // monetary: an ISO 4217 code, and of the state classes only total
      if (c.device_class === 'monetary') {
        expect(c.unit_of_measurement, e.id).toMatch(/^[A-Z]{3}$/);
        expect(['total', undefined], e.id).toContain(c.state_class);
      }
      if (c.device_class === 'timestamp') {
        expect(c, e.id).not.toHaveProperty('unit_of_measurement');
        expect(c, e.id).not.toHaveProperty('state_class');
      }
      // a per-kWh price is no amount of money
      if (String(c.unit_of_measurement).includes('/')) expect(c, e.id).not.toHaveProperty('device_class');
      if (e.lastReset) expect(c.state_class, e.id).toBe('total');
    }
    expect(E.discoveryConfig(naming, E.feedEntity('prices'))).toMatchObject({
      device_class: 'problem',
      entity_category: 'diagnostic',
      payload_on: 'ON',
      payload_off: 'OFF',
    });
  });

  it('have single-component discovery topics with satwatt as the node id', () => {
    expect(E.discoveryTopic(naming, E.SPOT_PRICE)).toBe(
      'homeassistant/sensor/satwatt/satwatt_spot_price/config',
    );
    expect(E.discoveryTopic(naming, E.TOMORROW_PUBLISHED)).toBe(
      'homeassistant/binary_sensor/satwatt/satwatt_tomorrow_published/config',
    );
    const custom = { ...naming, topicPrefix: 'home/power', discoveryPrefix: 'ha' };
    expect(E.stateTopic(custom, E.SPOT_PRICE)).toBe('home/power/spot_price/state');
    expect(E.attributesTopic(custom, E.SPOT_PRICE)).toBe('home/power/spot_price/attributes');
    expect(E.availabilityTopic(custom)).toBe('home/power/status');
    expect(E.birthTopic(custom)).toBe('ha/status');
    for (const e of ALL) expect(E.discoveryTopic(naming, e).split('/')[3]).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('carry the device, the availability and the state topic in each config', () => {
    expect(E.discoveryConfig(naming, E.CONSUMER_PRICE)).toEqual({
      name: 'Consumer price',
      unique_id: 'satwatt_consumer_price',
      default_entity_id: 'sensor.satwatt_consumer_price',
      state_topic: 'satwatt/consumer_price/state',
      json_attributes_topic: 'satwatt/consumer_price/attributes',
      availability_topic: 'satwatt/status',
      payload_available: 'online',
      payload_not_available: 'offline',
      device: {
        identifiers: ['satwatt'],
        name: 'satwatt',
        manufacturer: 'satwatt',
        model: 'satwatt',
        sw_version: '0.1.0',
      },
      origin: { name: 'satwatt', sw_version: '0.1.0' },
      unit_of_measurement: 'DKK/kWh',
      state_class: 'measurement',
      suggested_display_precision: 2,
      icon: 'mdi:flash',
    });
    expect(E.discoveryConfig(naming, E.COST_MONTH)).toMatchObject({
      value_template: '{{ value_json.value }}',
      last_reset_value_template: '{{ value_json.last_reset }}',
    });
  });

  it('make a feed’s name a valid object id', () => {
    expect(E.feedEntity('prices').id).toBe('satwatt_feed_prices');
    expect(E.feedEntity('Kraken WS/v2').id).toBe('satwatt_feed_kraken_ws_v2');
  });
});
