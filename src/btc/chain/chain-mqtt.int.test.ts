import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEsplora } from '../../../test/fakes/esplora.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { TOKEN, TREZOR, ZPUB, auth, chainServices } from '../../../test/support/chain.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { Listener, Mosquitto } from '../../../test/support/mosquitto.js';

/** With MQTT_PRIVATE, each watched wallet's difference from the chain is a Home Assistant sensor. */
const STATE = 'satwatt/chain_difference_wallet_4/state';

let broker: Mosquitto;
let esplora: FakeEsplora;
let db: TestDatabase;
let ha: Listener;
beforeAll(async () => {
  [broker, esplora, db] = await Promise.all([Mosquitto.start(), FakeEsplora.start(), freshDatabase()]);
  ha = await Listener.connect(broker.url);
  esplora.pay({ to: [{ address: TREZOR.address(0, 0), value: 50_000 }], block: 823_010 });
});
afterAll(async () => {
  await ha?.close();
  await Promise.all([broker?.close(), esplora?.close()]);
  await db?.close();
});

const start = (privately: boolean): Promise<TestApp> =>
  startTestApp({
    db,
    env: {
      API_TOKEN: TOKEN,
      ESPLORA_URL: esplora.url,
      MQTT_URL: broker.url,
      MQTT_PRIVATE: String(privately),
    },
    services: chainServices(),
    mqtt: { recheckMs: 100, birthDelayMs: 0 },
  });

describe('the chain difference sensor', () => {
  it('with MQTT_PRIVATE, is the wallet’s difference in sats, as GET /api/wallets answers it', async () => {
    const app = await start(true);
    try {
      expect((await app.call('PATCH', '/api/wallets/4', { watch: ZPUB }, auth)).statusCode).toBe(200);
      expect((await app.call('POST', '/api/wallets/4/chain/scan', undefined, auth)).statusCode).toBe(200);
      const wallets = (await app.call('GET', '/api/wallets', undefined, auth)).json();
      expect(wallets.find((w: { id: number }) => w.id === 4).difference_sats).toBe(50_000);
      await app.startFeeds();
      expect(await ha.until(STATE)).toBe('50000');
      expect(ha.configs().get('satwatt_chain_difference_wallet_4')).toMatchObject({
        name: 'Chain difference Trezor',
        unit_of_measurement: 'sats',
        state_class: 'measurement',
      });
    } finally {
      await app.close();
    }
  });

  it('a later run without MQTT_PRIVATE takes it off the broker', async () => {
    expect((await ha.retainedNow()).get(STATE)).toBe('50000');
    const app = await start(false);
    try {
      await app.startFeeds();
      await ha.until('satwatt/status', (p) => p === 'online');
      await ha.until(STATE, (p) => p === '');
      const retained = await ha.retainedNow();
      expect([...retained.keys()].filter((t) => t.includes('chain_difference'))).toEqual([]);
      // the public feeds go on being published
      expect(retained.get('satwatt/feed_chain/state')).toBe('OFF');
    } finally {
      await app.close();
    }
  });

  it('a wallet whose watch key is removed has its sensor taken off the broker at the next round', async () => {
    const app = await start(true);
    try {
      await app.startFeeds();
      expect(await ha.until(STATE, (p) => p === '50000')).toBe('50000');
      expect((await app.call('PATCH', '/api/wallets/4', { watch: null }, auth)).statusCode).toBe(200);
      app.clock.advance(15 * 60_000);
      await ha.until(STATE, (p) => p === '');
      const retained = await ha.retainedNow();
      expect([...retained.keys()].filter((t) => t.includes('chain_difference'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
