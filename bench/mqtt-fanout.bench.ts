import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import { createRuntime } from '../src/runtime.js';
import { MemoryRates, RATES_0703 } from '../test/fakes/market-rates.js';
import { Listener, MOSQUITTO, Mosquitto } from '../test/support/mosquitto.js';
import { marketOnly } from '../test/support/services.js';
import { benchConfig, row, type Benchmark, type BenchRow } from './lib.js';
import { Clients, krakenUpstream, MANY_STREAMS, MESSAGES, round, type Round } from './stream-fanout.bench.js';

const CLIENTS = 1_000;
/** Passes over the four services; the shared machine's noise is large beside what MQTT costs. */
const PASSES = 4;

/** One btc service's market, fed by its own Kraken upstream, with MQTT on (to `broker`, under `prefix`) or off. */
async function node(broker: string | null, prefix = 'satwatt') {
  const upstream = await krakenUpstream();
  const config = benchConfig({
    SERVICES: 'btc',
    SPOT_FEED_ENABLED: 'true',
    SPOT_FEED_URL: upstream.url,
    ...MANY_STREAMS,
    MQTT_URL: broker ?? '',
    MQTT_TOPIC_PREFIX: prefix,
  });
  const database = await openDatabase({ server: null });
  const runtime = await createRuntime(config, {
    database,
    log: pino({ level: 'silent' }),
    services: marketOnly(new MemoryRates(RATES_0703)),
  });
  const url = `${(await runtime.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws')}/api/stream/price`;
  await runtime.startFeeds();
  await upstream.connected();
  return {
    mqtt: broker !== null,
    url,
    tick: upstream.tick,
    async close() {
      await runtime.stop();
      await database.close();
      upstream.close();
    },
  };
}

/**
 * The price stream fan-out (a Kraken tick in, through the spot feed, the stored row and the
 * fan-out, out to N WebSocket clients in another process) of a service publishing to a real
 * Mosquitto, read by a subscriber as Home Assistant would, beside the same service with MQTT
 * off: two of each, in rounds of the same run.
 */
export const mqttFanoutBench: Benchmark = {
  name: 'mqtt-fanout',
  skipReason: () => (existsSync(MOSQUITTO) ? null : `no broker at ${MOSQUITTO} (apt-get install mosquitto)`),
  async run() {
    const broker = await Mosquitto.start();
    const ha = await Listener.connect(broker.url);
    // four services in this process, made in the order on, off, off, on and run forwards and
    // backwards: one that is slower for being made first or last (two services with MQTT off,
    // run the same way, differed by about 4 %) weighs on both sides alike
    const nodes = [
      await node(broker.url, 'satwatt'),
      await node(null),
      await node(null),
      await node(broker.url, 'satwatt-b'),
    ];
    await ha.until('satwatt/status', (p) => p === 'online');
    await ha.until('satwatt-b/status', (p) => p === 'online');
    const clients = new Clients();
    const rounds: Record<'on' | 'off', Round[]> = { on: [], off: [] };
    const published = () => ha.heard.filter((m) => m.topic.endsWith('/btc_price_usd/state')).length;
    const before = published();
    let seq = 1;
    try {
      for (let pass = 0; pass < PASSES; pass++) {
        for (const subject of pass % 2 === 0 ? nodes : [...nodes].reverse()) {
          rounds[subject.mqtt ? 'on' : 'off'].push(
            await round(clients, subject.url, CLIENTS, subject.tick, seq),
          );
          seq += MESSAGES;
        }
      }
    } finally {
      clients.kill();
      for (const n of nodes) await n.close();
      await ha.close();
      await broker.close();
    }
    // the median round: one round that a neighbour's burst of work slowed moves no figure
    const median = (which: 'on' | 'off', k: keyof Round) => {
      const xs = rounds[which].map((r) => r[k]).sort((a, b) => a - b);
      return (xs[(xs.length - 1) >> 1]! + xs[xs.length >> 1]!) / 2;
    };
    const base = {
      baselineName: `MQTT off, ${CLIENTS} clients (median of ${PASSES * 2} rounds)`,
      unit: 'ms',
    };
    const note = `${published() - before} BTC states over MQTT; delivered ${(median('on', 'delivered') * 100).toFixed(1)}% vs ${(median('off', 'delivered') * 100).toFixed(1)}%`;
    const rows: BenchRow[] = [
      row({
        baselineName: `MQTT off (1.00 by definition)`,
        unit: '×',
        name: `price stream speed with MQTT on, ${CLIENTS} clients (p50 latency off ÷ on)`,
        value: median('off', 'p50') / median('on', 'p50'),
        baseline: 1,
        target: '≥ 0.95',
        note,
      }),
      row({
        ...base,
        name: `price stream p50 latency, MQTT on`,
        value: median('on', 'p50'),
        baseline: median('off', 'p50'),
      }),
      row({
        ...base,
        name: `price stream p99 latency, MQTT on`,
        value: median('on', 'p99'),
        baseline: median('off', 'p99'),
      }),
      row({
        ...base,
        name: `service event-loop delay p99, MQTT on`,
        value: median('on', 'loopP99'),
        baseline: median('off', 'loopP99'),
      }),
    ];
    return rows;
  },
};
