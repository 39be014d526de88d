import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { FakeEnergiDataService } from '../../test/fakes/energidataservice.js';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { testConfig } from '../../test/support/app.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../test/support/db.js';
import { hangingBroker, Listener, Mosquitto } from '../../test/support/mosquitto.js';
import { freePort } from '../../test/support/process.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { fixedClock } from '../shared/clock.js';
import type { MqttOptions } from './index.js';

/**
 * The broker is a provider like the others: down, hanging or restarted, it never delays the
 * start, a request or a stop, shows in /health without its credentials, and gets everything
 * again when it is back.
 */
const NOW = '2026-07-03T10:07:30Z';
const USER = 'ha-bridge-user';
const PASSWORD = 'pw-Zq8!x@y/7%3A';
const credentials = `${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}`;
/** Long enough that a stop or a start waiting for it would show. */
const SLOW: Partial<MqttOptions> = {
  connectTimeoutMs: 60_000,
  initialBackoffMs: 200,
  maxBackoffMs: 1_000,
  recheckMs: 100,
  feedsIntervalMs: 100,
  birthDelayMs: 0,
};

let eds: FakeEnergiDataService;
let db: TestDatabase;

beforeAll(async () => {
  [eds, db] = await Promise.all([FakeEnergiDataService.start(), freshDatabase()]);
});
afterAll(async () => {
  await eds?.close();
  await db?.close();
});

interface Started {
  runtime: Runtime;
  logs: string[];
  get(url: string): Promise<{ status: number; body: string }>;
}

async function serve(env: Record<string, string>): Promise<Started> {
  const logs: string[] = [];
  const runtime = await createRuntime(
    testConfig({ PRICE_FEED_URL: eds.url, SERVICES: 'power', LOG_LEVEL: 'debug', ...env }),
    {
      database: db.database,
      clock: fixedClock(NOW),
      log: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }),
      mqtt: SLOW,
    },
  );
  return {
    runtime,
    logs,
    get: async (url) => {
      const res = await runtime.app.inject({ method: 'GET', url });
      return { status: res.statusCode, body: res.body };
    },
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

type Health = {
  status: string;
  feeds: Record<string, { enabled: boolean; ok: boolean; connected: boolean | null; detail: string | null }>;
};

describe('without MQTT_URL', () => {
  it('shows the mqtt feed off in /health and connects nowhere', async () => {
    const s = await serve({});
    try {
      await s.runtime.startFeeds();
      const h = JSON.parse((await s.get('/health')).body) as Health;
      expect(h.feeds.mqtt).toMatchObject({
        enabled: false,
        ok: true,
        connected: null,
        detail: 'off: MQTT_URL is not set',
      });
    } finally {
      await s.runtime.stop();
    }
  });
});

describe('a broker that is down, then comes', () => {
  let s: Started;
  let broker: Mosquitto | null = null;
  let port: number;

  afterAll(async () => {
    await s?.runtime.stop();
    await broker?.close();
  });

  it('starts, answers and reports mqtt failing in /health, without the credentials', async () => {
    port = await freePort();
    s = await serve({ MQTT_URL: `mqtt://${credentials}@127.0.0.1:${port}` });
    await s.runtime.startFeeds();
    expect((await s.get('/api/prices?area=DK1')).status).toBe(200);
    const health = await waitFor(
      async () => {
        const h = JSON.parse((await s.get('/health')).body) as Health;
        return h.feeds.mqtt?.ok === false && h;
      },
      10_000,
      'mqtt failing in /health',
    );
    expect(health.status).toBe('degraded');
    expect(health.feeds.mqtt).toMatchObject({ ok: false, connected: false });
    const everything = JSON.stringify(health) + s.logs.join('');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(encodeURIComponent(PASSWORD));
    expect(everything).not.toContain(USER);
  });

  it('connects once the broker is up, with the credentials, and publishes', async () => {
    broker = await Mosquitto.start({ users: { [USER]: PASSWORD }, port });
    const ha = await Listener.connect(broker.url, { username: USER, password: PASSWORD });
    try {
      await ha.until('satwatt/status', (p) => p === 'online');
      await ha.until('satwatt/spot_price/state', (p) => p !== 'None');
      const h = JSON.parse((await s.get('/health')).body) as Health;
      expect(h.feeds.mqtt).toMatchObject({ ok: true, connected: true });
      expect(JSON.stringify(h) + s.logs.join('')).not.toContain(PASSWORD);
    } finally {
      await ha.close();
    }
  });

  it('publishes everything again after the broker restarts empty, and is healthy meanwhile', async () => {
    await broker!.stop();
    await waitFor(
      async () => (JSON.parse((await s.get('/health')).body) as Health).feeds.mqtt?.connected === false,
      10_000,
      'the lost connection in /health',
    );
    expect((await s.get('/api/consumer-prices')).status).toBe(200);
    await broker!.restart();
    const ha = await Listener.connect(broker!.url, { username: USER, password: PASSWORD });
    try {
      await ha.until('satwatt/status', (p) => p === 'online');
      const retained = await ha.retainedNow();
      expect(retained.get('homeassistant/sensor/satwatt/satwatt_spot_price/config')).toBeDefined();
      expect(retained.get('satwatt/spot_price/state')).toMatch(/^-?\d/);
      expect(retained.get('satwatt/consumer_price/attributes')).toContain('"today"');
      expect(retained.get('homeassistant/binary_sensor/satwatt/satwatt_feed_prices/config')).toBeDefined();
      const h = JSON.parse((await s.get('/health')).body) as Health;
      expect(h.feeds.mqtt).toMatchObject({ ok: true, connected: true });
      expect(h.feeds.mqtt!.detail).toBeNull();
    } finally {
      await ha.close();
    }
  });

  it('with SERVICES=power alone publishes the power entities and no btc ones', async () => {
    const ha = await Listener.connect(broker!.url, { username: USER, password: PASSWORD });
    try {
      await ha.until('satwatt/status', (p) => p === 'online');
      await ha.until('satwatt/tomorrow_published/state');
      const ids = [...ha.configs().keys()];
      expect(ids).toContain('satwatt_cheapest_3h_start');
      expect(ids.filter((id) => /btc|quote|premium/.test(id))).toEqual([]);
    } finally {
      await ha.close();
    }
  });

  it('says offline, retained, on a clean stop', async () => {
    await s.runtime.stop();
    const ha = await Listener.connect(broker!.url, { username: USER, password: PASSWORD });
    const retained = await ha.retainedNow();
    await ha.close();
    expect(retained.get('satwatt/status')).toBe('offline');
    expect(retained.get('satwatt/spot_price/state')).toBeDefined();
  });
});

describe.skipIf(!TEST_DATABASE_URL)('several processes on one PostgreSQL database', () => {
  it('only the leader publishes; when it stops another takes over', async () => {
    const broker = await Mosquitto.start();
    const nodes: Started[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const n = await serve({ MQTT_URL: broker.url, DATABASE_URL: db.url! });
        await n.runtime.startFeeds();
        nodes.push(n);
      }
      const feeds = async () =>
        Promise.all(
          nodes.map(async (n) => (JSON.parse((await n.get('/health')).body) as Health).feeds.mqtt!),
        );
      const [leader, follower] = await waitFor(
        async () => {
          const f = await feeds();
          const i = f.findIndex((x) => x.connected === true);
          return i >= 0 && f[1 - i]!.detail?.startsWith('standby') && [nodes[i]!, nodes[1 - i]!];
        },
        20_000,
        'one publisher and one standby',
      );
      const ha = await Listener.connect(broker.url);
      await ha.until('satwatt/status', (p) => p === 'online');
      // over a few health looks the standby never connects
      for (let i = 0; i < 10; i++) {
        expect((await feeds()).filter((f) => f.connected === true)).toHaveLength(1);
        await new Promise((r) => setTimeout(r, 100));
      }
      const from = ha.heard.length;
      await leader.runtime.stop();
      nodes.splice(nodes.indexOf(leader), 1);
      await waitFor(
        () => ha.heard.slice(from).some((m) => m.topic === 'satwatt/status' && m.payload === 'offline'),
        10_000,
        'offline from the stopped leader',
      );
      await ha.until('satwatt/status', (p) => p === 'online', 20_000);
      const h = JSON.parse((await follower.get('/health')).body) as Health;
      expect(h.feeds.mqtt).toMatchObject({ connected: true, ok: true });
      await ha.close();
    } finally {
      for (const n of nodes) await n.runtime.stop();
      await broker.close();
    }
  });
});

describe('a broker that hangs', () => {
  it('delays neither the start nor a request nor the stop', async () => {
    const hanging = await hangingBroker();
    try {
      const s = await serve({ MQTT_URL: hanging.url.replace('//', `//${credentials}@`) });
      const start = await timed(() => s.runtime.startFeeds());
      await waitFor(() => hanging.sockets.size > 0, 10_000, 'a connection to the hanging broker');
      const request = await timed(async () => expect((await s.get('/api/prices?area=DK1')).status).toBe(200));
      const health = JSON.parse((await s.get('/health')).body) as Health;
      expect(health.feeds.mqtt!.detail).toBe(`connecting to ${hanging.url}`);
      expect(JSON.stringify(health)).not.toContain(encodeURIComponent(PASSWORD));
      expect(JSON.stringify(health)).not.toContain(USER);
      const stop = await timed(() => s.runtime.stop());
      // the connect timeout is 60 s: a start, request or stop that waited for the broker would take it
      expect(Math.max(start, request, stop), JSON.stringify({ start, request, stop })).toBeLessThan(20_000);
      await waitFor(() => hanging.sockets.size === 0, 5_000, 'the socket closed by the stop');
    } finally {
      await hanging.close();
    }
  });

  it('stops within its grace when a connected broker stops answering', async () => {
    const broker = await Mosquitto.start();
    try {
      const s = await serve({ MQTT_URL: broker.url });
      await s.runtime.startFeeds();
      const ha = await Listener.connect(broker.url);
      await ha.until('satwatt/status', (p) => p === 'online');
      await ha.close();
      broker.pause();
      try {
        expect(await timed(() => s.runtime.stop())).toBeLessThan(20_000);
      } finally {
        broker.resume();
      }
      // back, the broker holds offline: ours if it took it in time, else the will
      const later = await Listener.connect(broker.url);
      await later.until('satwatt/status', (p) => p === 'offline', 10_000);
      await later.close();
    } finally {
      await broker.close();
    }
  });
});
