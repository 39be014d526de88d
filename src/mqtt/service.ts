import type { Logger } from 'pino';
import { whenAborted, type Job } from '../jobs/job.js';
import { BTC_PRICE_CHANNEL } from '../btc/market/btc-price.js';
import { QUOTE_CHANNEL } from '../btc/market/quotes.js';
import type { MqttBroker } from '../config.js';
import type { Database } from '../db/connect.js';
import type { FeedHealth, HealthRegistry } from '../shared/health.js';
import type { Clock } from '../shared/clock.js';
import { sleep } from '../shared/sleep.js';
import { availabilityTopic, birthTopic, feedEntity, type Naming } from './entities.js';
import type { FigureReader } from './figures.js';
import { Publisher } from './publisher.js';
import { BrokerSession, type SessionOptions } from './session.js';
import { problemState } from './states.js';
import { Throttle } from './throttle.js';
import { WindowControl } from './windows/control.js';

export interface MqttOptions extends SessionOptions {
  /** BTC figures (and the portfolio, which moves with them) and the quote go out at most this often. */
  btcIntervalMs: number;
  /** How often the feeds' health is looked at. */
  feedsIntervalMs: number;
  /** The longest the clock goes unread between quarter hours (it may be set or jump). */
  recheckMs: number;
  /** Home Assistant's birth is answered after a random delay up to this, as it asks of many devices. */
  birthDelayMs: number;
}

export const DEFAULT_MQTT_OPTIONS: MqttOptions = {
  connectTimeoutMs: 5_000,
  keepaliveS: 30,
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  stopGraceMs: 1_000,
  btcIntervalMs: 10_000,
  feedsIntervalMs: 5_000,
  recheckMs: 60_000,
  birthDelayMs: 1_000,
};

export interface MqttDeps {
  clock: Clock;
  log: Logger;
  health: HealthRegistry;
  database: Pick<Database, 'listen' | 'db'>;
  shutdown: AbortSignal;
  broker: MqttBroker;
  naming: Naming & { private: boolean };
  /** Reads the figures from the services that answer the API. */
  reader: FigureReader;
}

/**
 * The process's publisher while it holds the publisher lock (its jobs): states on change
 * (prices at every quarter hour by the clock and so at every new day, BTC at most every
 * btcIntervalMs, feeds as their health changes), the broker reached through a session that
 * reconnects on its own. A follower publishes nothing and keeps no connection.
 */
export class MqttService {
  private readonly publisher: Publisher;
  private readonly session: BrokerSession;
  private readonly feed: FeedHealth;
  private readonly btc: Throttle;
  private readonly quote: Throttle;
  private readonly control: WindowControl;
  private readonly cleanups: (() => unknown)[] = [];
  /** The publisher's signal while this process publishes. */
  private lead: { signal: AbortSignal } | null = null;
  /** The figures are read one refresh at a time, whether the clock or an event asked. */
  private figuresTurn: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: MqttDeps,
    private readonly opts: MqttOptions = DEFAULT_MQTT_OPTIONS,
  ) {
    const { broker, naming, reader } = deps;
    this.feed = deps.health.feed('mqtt', true);
    this.publisher = new Publisher(naming, { private: naming.private });
    this.publisher.declare(reader.entities());
    this.control = new WindowControl({ db: deps.database.db, clock: deps.clock, log: deps.log, naming });
    this.session = new BrokerSession(
      {
        broker,
        will: { topic: availabilityTopic(naming), payload: 'offline' },
        subscriptions: [birthTopic(naming), ...this.control.topics()],
        handlers: {
          connected: (outbox) => this.publisher.connected(outbox),
          disconnected: () => this.publisher.disconnected(),
          message: (topic, payload, retained) => this.heard(topic, payload, retained),
        },
        health: this.feed,
        clock: deps.clock,
        log: deps.log,
      },
      opts,
    );
    this.btc = new Throttle(opts.btcIntervalMs, deps.clock, async () => {
      this.publisher.update(await reader.btc());
      if (naming.private) this.publisher.update(await reader.portfolio());
    });
    this.quote = new Throttle(opts.btcIntervalMs, deps.clock, async () =>
      this.publisher.update(await reader.quote()),
    );
  }

  async start(): Promise<void> {
    const { database } = this.deps;
    this.cleanups.push(await database.listen(BTC_PRICE_CHANNEL, () => this.lead && this.btc.poke()));
    this.cleanups.push(await database.listen(QUOTE_CHANNEL, () => this.lead && this.quote.poke()));
    // The consumer price and the costs are unknown until the household's charges are: publish them as they come.
    this.cleanups.push(this.deps.reader.onChargesChanged(() => void (this.lead && this.figures())));
  }

  async stop(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c();
    await this.figuresTurn;
    await this.btc.stop();
    await this.quote.stop();
  }

  /**
   * The jobs of the holder of the publisher lock: the broker's session while it holds it; the
   * prices, the cheapest hours, costs, the portfolio and the chain differences at every quarter
   * hour of the clock; the feeds' problems every feedsIntervalMs.
   */
  jobs(): Job[] {
    const lock = 'mqttPublisher';
    return [
      {
        name: 'mqtt-publisher',
        schedule: { once: true },
        lock,
        health: this.feed,
        standby: 'standby: another process holds the publisher lock',
        leading: `connecting to ${this.deps.broker.url}`,
        round: (signal) => this.publish(signal),
      },
      {
        name: 'mqtt-figures',
        schedule: { cron: '*/15 * * * *', recheckMs: this.opts.recheckMs },
        lock,
        round: () => this.figures(),
      },
      {
        name: 'mqtt-feeds',
        schedule: { everyMs: this.opts.feedsIntervalMs },
        lock,
        round: async () => this.feeds(),
      },
    ];
  }

  /** Connected while `signal` lets it; a stop says offline on the broker, a lost lead leaves quietly. */
  private async publish(signal: AbortSignal): Promise<void> {
    this.lead = { signal };
    this.session.start(signal);
    this.btc.poke();
    this.quote.poke();
    await whenAborted(signal);
    this.lead = null;
    await this.session.stop({ offline: this.deps.shutdown.aborted });
  }

  /** Prices, the cheapest hours, and with MQTT_PRIVATE the costs, the portfolio and the watched wallets. */
  private figures(): Promise<void> {
    this.figuresTurn = this.figuresTurn.then(() =>
      this.refresh('prices', async () => {
        this.publisher.update(await this.deps.reader.power());
        this.publisher.update(await this.deps.reader.windows(await this.control.settings()));
        this.publisher.update(await this.deps.reader.co2());
        if (!this.deps.naming.private) {
          this.publisher.withhold(((await this.deps.reader.chain()) ?? []).map((u) => u.entity));
          return;
        }
        this.publisher.update(await this.deps.reader.costs());
        this.publisher.update(await this.deps.reader.portfolio());
        const chain = await this.deps.reader.chain();
        if (chain) this.publisher.runTime(chain);
      }),
    );
    return this.figuresTurn;
  }

  private feeds(): void {
    // A feed's first round (the household's charges loading at a first start) is no problem yet.
    const updates = this.deps.health
      .all()
      .filter((f) => f !== this.feed)
      .map((f) => ({ entity: feedEntity(f.name), state: problemState(f.ok || f.starting) }));
    this.publisher.update(updates);
  }

  /** Home Assistant came (back): everything again. A retained birth came with our own subscribe. */
  private heard(topic: string, payload: string, retained: boolean): void {
    if (topic !== birthTopic(this.deps.naming)) {
      void this.control
        .command(topic, payload, retained)
        .then(async (changed) => {
          if (changed && this.lead) await this.figures();
        })
        .catch((e: unknown) => this.deps.log.warn({ err: e }, 'mqtt: a window setting could not be stored'));
      return;
    }
    if (payload !== 'online' || retained) return;
    const lead = this.lead;
    if (!lead) return;
    const delay = Math.round(Math.random() * this.opts.birthDelayMs);
    void sleep(delay, lead.signal).then(() => {
      if (!lead.signal.aborted) this.publisher.republish();
    });
  }

  private async refresh(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      this.deps.log.warn({ err: e }, `mqtt: refreshing the ${what} failed`);
    }
  }
}
