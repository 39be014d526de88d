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
/** Rounds of each, alternating; the shared machine's noise is large beside what MQTT costs. */
const ROUNDS = 8;

/** One btc process's market, fed by its own Kraken upstream, with MQTT on (to `broker`) or off. */
async function node(broker: string | null) {
  const upstream = await krakenUpstream();
  const config = benchConfig({
    SERVICES: 'btc',
    SPOT_FEED_ENABLED: 'true',
    SPOT_FEED_URL: upstream.url,
    ...MANY_STREAMS,
    MQTT_URL: broker ?? '',
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
 * fan-out, out to N WebSocket clients in another process) of a process publishing to a real
 * Mosquitto beside the same process with MQTT off, in alternating rounds of the same run.
 */
export const mqttFanoutBench: Benchmark = {
  name: 'mqtt-fanout',
  skipReason: () => (existsSync(MOSQUITTO) ? null : `no broker at ${MOSQUITTO} (apt-get install mosquitto)`),
  async run() {
    const broker = await Mosquitto.start();
    const ha = await Listener.connect(broker.url);
    const on = await node(broker.url);
    const off = await node(null);
    await ha.until('satwatt/status', (p) => p === 'online');
    const clients = new Clients();
    const rounds: Record<'on' | 'off', Round[]> = { on: [], off: [] };
    const published = () => ha.heard.filter((m) => m.topic === 'satwatt/btc_price_usd/state').length;
    const before = published();
    let seq = 1;
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          const subject = which === 'on' ? on : off;
          rounds[which].push(await round(clients, subject.url, CLIENTS, subject.tick, seq));
          seq += MESSAGES;
        }
      }
    } finally {
      clients.kill();
      await on.close();
      await off.close();
      await ha.close();
      await broker.close();
    }
    // the median round: one round that a neighbour's burst of work slowed moves no figure
    const median = (which: 'on' | 'off', k: keyof Round) => {
      const xs = rounds[which].map((r) => r[k]).sort((a, b) => a - b);
      return (xs[(xs.length - 1) >> 1]! + xs[xs.length >> 1]!) / 2;
    };
    const base = { baselineName: `MQTT off, ${CLIENTS} clients (median of ${ROUNDS} rounds)`, unit: 'ms' };
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
