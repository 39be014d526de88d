import { execFile } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { Mosquitto } from '../../test/support/mosquitto.js';
import { systemClock } from '../shared/clock.js';
import { FeedHealth } from '../shared/health.js';
import { MAX_INCOMING_PACKET_BYTES } from './packet-guard.js';
import { BrokerSession } from './session.js';

/**
 * What the MQTT client accepts is capped: a 100 MB retained message on Home Assistant's birth
 * topic (published by another client) never reaches satwatt's memory and its session keeps
 * working; a broker that sends an oversized packet anyway is cut off at its header and
 * reconnected to; a broker that speaks only MQTT 3.1.1 is spoken to in 3.1.1.
 */
const BIRTH = 'homeassistant/status';
const run = promisify(execFile);

function session(url: string) {
  const heard: { topic: string; bytes: number; retained: boolean }[] = [];
  const health = new FeedHealth('mqtt', true);
  const logs: string[] = [];
  const s = new BrokerSession(
    {
      broker: { url, username: null, password: null } as never,
      will: { topic: 'satwatt/status', payload: 'offline' },
      subscriptions: [BIRTH],
      handlers: {
        connected: () => {},
        disconnected: () => {},
        message: (topic, payload, retained) => heard.push({ topic, bytes: payload.length, retained }),
      },
      health,
      clock: systemClock,
      log: pino({ level: 'warn' }, { write: (line: string) => void logs.push(line) }),
    },
    { connectTimeoutMs: 5_000, keepaliveS: 30, initialBackoffMs: 100, maxBackoffMs: 400, stopGraceMs: 300 },
  );
  return { s, heard, health, logs };
}

describe('a 100 MB retained message on the birth topic, through a real mosquitto', () => {
  let broker: Mosquitto;
  let dir: string;
  beforeAll(async () => {
    broker = await Mosquitto.start();
    dir = await mkdtemp(path.join(tmpdir(), 'satwatt-mqtt-big-'));
  });
  afterAll(async () => {
    await broker?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('never reaches the client: memory stays flat, the session stays up and hears the next birth', async () => {
    const { s, heard, health } = session(broker.url);
    s.start(new AbortController().signal);
    try {
      await waitFor(() => health.connected === true, 10_000, 'the session connected');
      global.gc?.();
      const before = process.memoryUsage();
      const file = path.join(dir, 'big');
      // 100 MB of zeros as a sparse file: nothing of it passes through this process
      await writeFile(file, '');
      await truncate(file, 100 * 1024 * 1024);
      // another client (Debian's mosquitto_pub, its own process) publishes it, retained
      const port = String(broker.port);
      await run('mosquitto_pub', ['-h', '127.0.0.1', '-p', port, '-q', '1', '-r', '-t', BIRTH, '-f', file]);
      // a later birth arrives after the big one in the broker's order: hearing it means the big one was passed
      await run('mosquitto_pub', ['-h', '127.0.0.1', '-p', port, '-q', '1', '-t', BIRTH, '-m', 'online']);
      await waitFor(() => heard.some((h) => h.bytes === 'online'.length), 20_000, 'the next birth');
      const after = process.memoryUsage();
      expect(heard.every((h) => h.bytes <= MAX_INCOMING_PACKET_BYTES)).toBe(true);
      // the 100 MB would show here as buffers and strings of that size
      expect((after.arrayBuffers - before.arrayBuffers) / 1024 / 1024).toBeLessThan(10);
      expect((after.rss - before.rss) / 1024 / 1024).toBeLessThan(60);
      expect(health.connected).toBe(true);
      expect(health.reconnects).toBe(0);
    } finally {
      await s.stop({ offline: false });
    }
    // a new session subscribes while the giant is retained: it is not sent, and the session stays up
    const again = session(broker.url);
    again.s.start(new AbortController().signal);
    try {
      await waitFor(() => again.health.connected === true, 10_000, 'the second session connected');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(again.heard).toEqual([]);
      expect(again.health.connected).toBe(true);
      expect(again.health.failures).toBe(0);
    } finally {
      await again.s.stop({ offline: false });
    }
  }, 60_000);
});

/** A broker of our own on 127.0.0.1, answering each CONNECT with `reply(protocol level)`. */
async function fakeBroker(reply: (level: number, socket: Socket) => void) {
  const connects: number[] = [];
  const server: Server = createServer((socket) => {
    socket.once('data', (d: Buffer) => {
      // CONNECT: type byte, remaining length (1–4 bytes), then 00 04 'MQTT' and the protocol level
      let i = 1;
      while (d[i]! & 0x80) i++;
      const level = d[i + 7]!;
      connects.push(level);
      reply(level, socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    connects,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('a broker that does not honour the limit, or speaks only 3.1.1', () => {
  it('cuts a broker off at the header of an oversized packet, then connects again', async () => {
    let sent = 0;
    const fake = await fakeBroker((_level, socket) => {
      // CONNACK of MQTT 5 (no session, success, no properties), then a PUBLISH announcing 100 MB
      socket.write(Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]));
      socket.write(Buffer.from([0x31, 0x80, 0x80, 0x80, 0x30]));
      const chunk = Buffer.alloc(1024 * 1024);
      const pump = () => {
        while (!socket.destroyed && sent < 100 * 1024 * 1024) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    const { s, health, logs } = session(fake.url);
    s.start(new AbortController().signal);
    try {
      await waitFor(() => fake.connects.length >= 2, 10_000, 'a second connection');
      expect(logs.join('')).toMatch(/mqtt: a packet over the limit; reconnecting/);
      expect(health.lastError).toMatch(
        /the broker sent a packet of 100663301 bytes; at most 65536 are taken/,
      );
      // what the kernel's buffers took before the close, not the 100 MB
      expect(sent / 1024 / 1024).toBeLessThan(20);
    } finally {
      await s.stop({ offline: false });
      await fake.close();
    }
  }, 30_000);

  it('speaks MQTT 3.1.1 to a broker that refuses 5, and stays connected', async () => {
    const fake = await fakeBroker((level, socket) => {
      // 3.1.1's CONNACK: return code 1 (unacceptable protocol version) to 5, accepted to 4
      socket.write(Buffer.from([0x20, 0x02, 0x00, level === 5 ? 0x01 : 0x00]));
      if (level === 5) socket.end();
    });
    const { s, health } = session(fake.url);
    s.start(new AbortController().signal);
    try {
      await waitFor(() => health.connected === true, 10_000, 'connected in 3.1.1');
      expect(fake.connects).toEqual([5, 4]);
    } finally {
      await s.stop({ offline: false });
      await fake.close();
    }
  }, 30_000);
});
