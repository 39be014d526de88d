import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedHealth } from '../../src/shared/health.js';
import { KrakenTickerClient, parseKrakenMessage, type KrakenTick } from '../../src/providers/kraken-ws.js';
import { sharedFixture, sharedFixturesPresent, SHARED_FIXTURES_DIR } from '../fakes/shared-fixtures.js';
import { waitFor } from '../fakes/stream-clients.js';
import { FakeWsServer } from '../fakes/ws.js';
import { testDeps } from '../support/providers.js';

if (!sharedFixturesPresent) console.log(`kraken-ws conformance skipped: ${SHARED_FIXTURES_DIR} is absent`);

const k = (name: string) => JSON.stringify(sharedFixture(`kraken/${name}`));

describe.skipIf(!sharedFixturesPresent)('Kraken WS v2 adapter against the recorded frames', () => {
  let ws: FakeWsServer;
  beforeAll(async () => {
    ws = await FakeWsServer.start();
  });
  afterAll(() => ws.close());

  it('parses every recorded frame kind', () => {
    expect(parseKrakenMessage(k('ws2_status_update.json'))).toEqual({ kind: 'status', system: 'online' });
    expect(parseKrakenMessage(k('ws2_heartbeat.json'))).toEqual({ kind: 'heartbeat' });
    expect(parseKrakenMessage(k('ws2_subscribe_ack_ticker_SHAPE_times-placeholder.json'))).toEqual({
      kind: 'subscribed',
      symbol: 'BTC/USD',
    });
    expect(parseKrakenMessage(k('ws2_subscribe_error_SHAPE.json'))).toEqual({
      kind: 'subscribe-failed',
      error: 'Currency pair not supported BTC/XYZ',
    });
    expect(parseKrakenMessage(k('ws2_pong_response_SHAPE.json'))).toEqual({ kind: 'other' });
    expect(sharedFixture('kraken/ws2_subscribe_request_ticker.json')).toMatchObject({
      method: 'subscribe',
      params: { channel: 'ticker' },
    });
  });

  it('replays a recorded session through the client: ticks with and without a timestamp', async () => {
    ws.onConnection((socket) => {
      socket.send(k('ws2_status_update.json'));
      socket.on('message', () => {
        socket.send(k('ws2_subscribe_ack_ticker_SHAPE_times-placeholder.json'));
        socket.send(k('ws2_ticker_snapshot_docs_example_ALGO-USD.json'));
        socket.send(k('ws2_ticker_update_BTC-USD_simdjson_issue2427.json'));
        socket.send(k('ws2_heartbeat.json'));
        socket.send(k('ws2_ticker_update_BTC-EUR_with_timestamp_kotlin_test.json'));
      });
    });
    const ticks: KrakenTick[] = [];
    const health = new FeedHealth('spot', true);
    const client = new KrakenTickerClient({
      ...testDeps('kraken-ws'),
      url: ws.url,
      symbols: ['BTC/USD', 'BTC/EUR'],
      onTick: (t) => ticks.push(t),
      health,
      log: pino({ level: 'silent' }),
    });
    client.start();
    try {
      await waitFor(() => ticks.length === 3);
      expect(ticks).toEqual([
        {
          symbol: 'ALGO/USD',
          last: 0.10035,
          bid: 0.10025,
          ask: 0.10036,
          timestamp: new Date('2023-09-25T09:04:31.742Z'),
        },
        { symbol: 'BTC/USD', last: 115113.0, bid: 115112.9, ask: 115113.0, timestamp: null },
        {
          symbol: 'BTC/EUR',
          last: 65927.0,
          bid: 65926.9,
          ask: 65927.0,
          timestamp: new Date('2026-08-22T18:15:11.309Z'),
        },
      ]);
      expect(client.malformed).toBe(0);
      expect(health.connected).toBe(true);
      expect(ws.received[0]).toMatchObject({
        method: 'subscribe',
        params: { channel: 'ticker', symbol: ['BTC/USD', 'BTC/EUR'] },
      });
    } finally {
      await client.stop();
    }
  });
});
