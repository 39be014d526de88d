import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { MqttBroker } from '../config.js';
import type { FeedHealth } from '../shared/health.js';
import type { Clock } from '../shared/clock.js';
import { sleep } from '../shared/sleep.js';
import { guardIncomingPackets, MAX_INCOMING_PACKET_BYTES, PacketTooLarge } from './packet-guard.js';
import type { Outbox } from './publisher.js';

export interface SessionOptions {
  /** Time for the broker to accept a connection (CONNACK) before it counts as down. */
  connectTimeoutMs: number;
  keepaliveS: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** On a clean stop, time for `offline` and the goodbye before the socket is simply closed. */
  stopGraceMs: number;
}

export interface SessionHandlers {
  /** A connection is up (the first or a reconnect): `outbox` publishes on it until it drops. */
  connected(outbox: Outbox): void;
  disconnected(): void;
  message(topic: string, payload: string, retained: boolean): void;
}

/**
 * One broker, the edge: connects with a last will (`offline`, retained), subscribes, and after
 * every lost or refused connection tries again after a backoff that doubles up to a ceiling,
 * with jitter so that many clients do not come back at once. MQTT.js's own reconnect is off:
 * every wait here hears the stop and ctx.shutdown, and a broker that accepts the socket and
 * never answers counts as down after connectTimeoutMs.
 */
export class BrokerSession {
  private client: MqttClient | null = null;
  /** Clients being closed on purpose, whose errors and close are no failure. */
  private readonly leaving = new WeakSet<MqttClient>();
  private run: { controller: AbortController; done: Promise<void> } | null = null;
  /** 5 until a broker refuses it. */
  private protocolVersion: 4 | 5 = 5;

  private readonly broker: MqttBroker;
  private readonly will: { topic: string; payload: string };
  private readonly handlers: SessionHandlers;
  private readonly health: FeedHealth;

  constructor(
    private readonly deps: {
      broker: MqttBroker;
      /** Sent by the broker when the connection ends without a goodbye; also said on a clean stop. */
      will: { topic: string; payload: string };
      subscriptions: string[];
      handlers: SessionHandlers;
      health: FeedHealth;
      clock: Clock;
      log: Logger;
    },
    private readonly opts: SessionOptions,
  ) {
    this.broker = deps.broker;
    this.will = deps.will;
    this.handlers = deps.handlers;
    this.health = deps.health;
  }

  start(shutdown: AbortSignal): void {
    if (this.run) return;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, shutdown]);
    this.run = { controller, done: this.loop(signal) };
  }

  /**
   * Ends the connection within about twice stopGraceMs whatever the broker does. With
   * `offline` (a clean stop) it says so first, retained; without it (another process now
   * publishes) it leaves quietly, and a clean disconnect keeps the broker from sending the will.
   */
  async stop(opts: { offline: boolean }): Promise<void> {
    const run = this.run;
    this.run = null;
    run?.controller.abort();
    await run?.done;
    const client = this.client;
    this.client = null;
    if (!client) return;
    this.handlers.disconnected();
    // the goodbye is no lost connection: nothing of it goes to /health as a failure
    this.leaving.add(client);
    if (client.connected) {
      if (opts.offline)
        await within(
          client.publishAsync(this.will.topic, this.will.payload, { qos: 1, retain: true }),
          this.opts.stopGraceMs,
        );
      await within(client.endAsync(false), this.opts.stopGraceMs);
    }
    // a goodbye the broker did not take leaves the socket open (a forced end after a begun
    // one does nothing): it is closed regardless, and the broker sends the will instead
    client.stream?.destroy();
    await within(client.endAsync(true), this.opts.stopGraceMs);
    this.health.connected = false;
  }

  /** Never rejects: whatever goes wrong shows in /health and is tried again. */
  private async loop(signal: AbortSignal): Promise<void> {
    try {
      await this.connectLoop(signal);
    } catch (e) {
      this.health.failure(this.scrub((e as Error).message));
      this.health.detail = 'stopped: the MQTT client failed; see the log';
      this.deps.log.error({ err: this.scrub((e as Error).message) }, 'mqtt: the broker connection failed');
    }
  }

  private async connectLoop(signal: AbortSignal): Promise<void> {
    // the default export: what Node's import of the CommonJS package and the bundle both offer
    const { connect } = (await import('mqtt')).default;
    let failures = 0;
    while (!signal.aborted) {
      const client = connect(this.broker.url, {
        username: this.broker.username,
        password: this.broker.password,
        clientId: `satwatt-${randomBytes(4).toString('hex')}`,
        clean: true,
        keepalive: this.opts.keepaliveS,
        connectTimeout: this.opts.connectTimeoutMs,
        reconnectPeriod: 0,
        will: { topic: this.will.topic, payload: Buffer.from(this.will.payload), qos: 1, retain: true },
        // MQTT 5 lets the broker know the largest packet taken, so it does not send a larger one
        protocolVersion: this.protocolVersion,
        ...(this.protocolVersion === 5
          ? { properties: { maximumPacketSize: MAX_INCOMING_PACKET_BYTES } }
          : {}),
      });
      // and whatever the broker does, a larger one closes the connection as its header arrives
      guardIncomingPackets(client.stream, MAX_INCOMING_PACKET_BYTES);
      this.client = client;
      const upMs = await this.session(client, signal);
      // on a stop the client is stop()'s, to say goodbye on it
      if (signal.aborted) return;
      this.client = null;
      client.end(true);
      // a connection that drops soon after it came counts as a failure too, so that a broker
      // that accepts and then drops us is not called every second
      failures = upMs !== null && upMs >= this.opts.maxBackoffMs ? 0 : failures + 1;
      const delay = reconnectDelay(failures, this.opts, Math.random);
      this.health.detail = `reconnecting in ${Math.ceil(delay / 1000)} s`;
      await sleep(delay, signal);
    }
  }

  /**
   * Resolves when the connection is closed (or never came up) or the signal aborts: with how
   * long it was up, or null if it never was.
   */
  private session(client: MqttClient, signal: AbortSignal): Promise<number | null> {
    return new Promise((resolve) => {
      let up = false;
      let erred = false;
      const connectedAt = { ms: 0 };
      const finish = () => {
        signal.removeEventListener('abort', finish);
        resolve(up ? this.deps.clock.monotonicMs() - connectedAt.ms : null);
      };
      if (signal.aborted) return finish();
      signal.addEventListener('abort', finish, { once: true });
      client.on('error', (e) => {
        erred = true;
        if (this.leaving.has(client)) return;
        this.health.failure(this.scrub(e.message));
        const code = (e as { code?: unknown }).code;
        // a broker of MQTT 3.1.1 only refuses 5 (3.1.1's code 1, or 5's 132): speak 3.1.1 to it
        if (!up && this.protocolVersion === 5 && (code === 1 || code === 132)) {
          this.protocolVersion = 4;
          this.deps.log.warn(
            { broker: this.scrub(this.broker.url) },
            'mqtt: the broker does not speak MQTT 5; using 3.1.1',
          );
        }
        if (e instanceof PacketTooLarge)
          this.deps.log.warn({ err: e.message }, 'mqtt: a packet over the limit; reconnecting');
      });
      client.on('message', (topic, payload, packet) =>
        this.handlers.message(topic, payload.toString(), packet.retain),
      );
      client.on('connect', () => {
        if (up || this.leaving.has(client)) return;
        up = true;
        connectedAt.ms = this.deps.clock.monotonicMs();
        if (this.health.connected === false) this.health.reconnects++;
        this.health.connected = true;
        this.health.detail = null;
        this.health.success();
        if (this.deps.subscriptions.length > 0)
          client.subscribe(this.deps.subscriptions, { qos: 1 }, (e) => {
            // a subscription cut short by a lost connection is no failure of its own: the
            // connection's error or close says why (and would be hidden behind this)
            if (e && client.connected) this.health.failure(this.scrub(e.message));
          });
        this.handlers.connected({
          publish: (topic, payload) =>
            client.publish(topic, payload, { qos: 1, retain: true }, (e) => {
              if (e) this.health.failure(this.scrub(e.message));
              else this.health.success();
            }),
        });
      });
      client.on('close', () => {
        if (this.leaving.has(client)) return finish();
        if (up) this.handlers.disconnected();
        if (!erred)
          this.health.failure(`${up ? 'lost the connection' : 'no connection'} to ${this.broker.url}`);
        this.health.connected = false;
        finish();
      });
    });
  }

  /** An error text without the credentials, in case a library or a broker ever echoes them. */
  private scrub(message: string): string {
    let m = message;
    for (const secret of [this.broker.password, this.broker.username])
      if (secret) m = m.split(secret).join('***');
    return m;
  }
}

/**
 * The wait before the next attempt: initialBackoffMs doubled per failure in a row (the first
 * retry waits twice it), up to maxBackoffMs, of which a random half is taken off so that many
 * clients that lost the same broker do not all come back at once.
 */
export function reconnectDelay(
  failures: number,
  opts: Pick<SessionOptions, 'initialBackoffMs' | 'maxBackoffMs'>,
  random: () => number,
): number {
  const ceiling = Math.min(opts.maxBackoffMs, opts.initialBackoffMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** Settles when `work` does or after `ms`, whichever comes first; never rejects. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => {}),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}
