import { describe, expect, it } from 'vitest';
import * as E from './entities.js';
import { Publisher } from './publisher.js';

const naming: E.Naming = { topicPrefix: 'satwatt', discoveryPrefix: 'homeassistant', version: '0.1.0' };

function outbox() {
  const sent: [string, string][] = [];
  return { sent, publish: (topic: string, payload: string) => void sent.push([topic, payload]) };
}

describe('the publisher', () => {
  it('sends configs, then states, then online on connect, and clears the private topics', () => {
    const p = new Publisher(naming, { private: false });
    p.declare([E.SPOT_PRICE, E.PORTFOLIO_VALUE]);
    p.update([{ entity: E.SPOT_PRICE, state: '0.4', attributes: '{}' }]);
    const out = outbox();
    p.connected(out);
    const topics = out.sent.map(([t]) => t);
    expect(topics.at(-1)).toBe('satwatt/status');
    expect(out.sent.at(-1)![1]).toBe('online');
    const config = topics.indexOf('homeassistant/sensor/satwatt/satwatt_spot_price/config');
    expect(config).toBeGreaterThanOrEqual(0);
    expect(topics.indexOf('satwatt/spot_price/state')).toBeGreaterThan(config);
    // every private topic emptied (deleted from the broker), none announced: config and state of
    // the three portfolio figures, and of the two costs their attributes too
    const privateSent = out.sent.filter(([t]) => /portfolio|pnl|electricity_cost/.test(t));
    expect(privateSent.length).toBe(3 * 2 + 2 * 3);
    expect(privateSent.map(([t]) => t)).toContain('satwatt/electricity_cost_month/attributes');
    expect(privateSent.every(([, payload]) => payload === '')).toBe(true);
  });

  it('sends a change at once, and nothing for an unchanged state', () => {
    const p = new Publisher(naming, { private: false });
    const out = outbox();
    p.connected(out);
    out.sent.length = 0;
    p.update([{ entity: E.BTC_EUR, state: '60000' }]);
    expect(out.sent).toEqual([
      [
        'homeassistant/sensor/satwatt/satwatt_btc_price_eur/config',
        JSON.stringify(E.discoveryConfig(naming, E.BTC_EUR)),
      ],
      ['satwatt/btc_price_eur/state', '60000'],
    ]);
    p.update([{ entity: E.BTC_EUR, state: '60000' }]);
    expect(out.sent).toHaveLength(2);
    p.update([{ entity: E.BTC_EUR, state: '60001' }]);
    expect(out.sent.at(-1)).toEqual(['satwatt/btc_price_eur/state', '60001']);
  });

  it('keeps what changes while disconnected and sends the latest on reconnect', () => {
    const p = new Publisher(naming, { private: true });
    p.connected(outbox());
    p.disconnected();
    p.update([
      { entity: E.PORTFOLIO_SATS, state: '1' },
      { entity: E.PORTFOLIO_SATS, state: '2' },
    ]);
    const out = outbox();
    p.connected(out);
    expect(out.sent.filter(([t]) => t === 'satwatt/portfolio_sats/state')).toEqual([
      ['satwatt/portfolio_sats/state', '2'],
    ]);
    expect(out.sent.filter(([, payload]) => payload === '')).toEqual([]);
  });

  it('drops the private figures without MQTT_PRIVATE', () => {
    const p = new Publisher(naming, { private: false });
    const out = outbox();
    p.connected(out);
    out.sent.length = 0;
    p.update([{ entity: E.COST_MONTH, state: '{"value":1}' }]);
    expect(out.sent).toEqual([]);
    expect(p.entities).toBe(0);
  });
});
