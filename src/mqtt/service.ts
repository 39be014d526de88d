import type { Logger } from 'pino';
import type { Leadership } from '../btc/leadership.js';
import { PRICE_CHANNEL } from '../btc/market/spot.js';
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
  database: Pick<Database, 'listen'>;
  shutdown: AbortSignal;
  broker: MqttBroker;
  naming: Naming & { private: boolean };
  /** Reads the figures from the services that answer the API. */
  reader: FigureReader;
  /** Only its holder publishes, when several processes share a database. */
  leadership: Leadership;
}

const QUARTER_MS = 15 * 60_000;

/**
 * The process's publisher while it leads: states on change (prices at every quarter hour by the
 * clock and so at every new day, BTC at most every btcIntervalMs, feeds as their health changes),
 * the broker reached through a session that reconnects on its own. A follower publishes nothing
 * and keeps no connection.
 */
export class MqttService {
  private readonly publisher: Publisher;
  private readonly session: BrokerSession;
  private readonly feed: FeedHealth;
  private readonly btc: Throttle;
  private readonly quote: Throttle;
  private readonly cleanups: (() => unknown)[] = [];
  private lead: { controller: AbortController; signal: AbortSignal; loops: Promise<void>[] } | null = null;
  private turn: Promise<void> = Promise.resolve();
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
    this.session = new BrokerSession(
      {
        broker,
        will: { topic: availabilityTopic(naming), payload: 'offline' },
        subscriptions: [birthTopic(naming)],
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
    this.cleanups.push(await database.listen(PRICE_CHANNEL, () => this.lead && this.btc.poke()));
    this.cleanups.push(await database.listen(QUOTE_CHANNEL, () => this.lead && this.quote.poke()));
    // The consumer price and the costs are unknown until the household's charges are: publish them as they come.
    this.cleanups.push(this.deps.reader.onChargesChanged(() => void (this.lead && this.figures())));
    this.cleanups.push(
      this.deps.leadership.watch((leader) => {
        this.turn = this.turn.then(() => (leader ? this.startLeading() : this.stopLeading(false)));
      }),
    );
  }

  async stop(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c();
    await this.turn;
    await this.stopLeading(true);
    await this.figuresTurn;
    await this.btc.stop();
    await this.quote.stop();
  }

  private startLeading(): void {
    if (this.lead || this.deps.shutdown.aborted) return;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, this.deps.shutdown]);
    this.feed.detail = `connecting to ${this.deps.broker.url}`;
    this.session.start(signal);
    this.lead = { controller, signal, loops: [this.quarters(signal), this.feeds(signal)] };
    this.btc.poke();
    this.quote.poke();
  }

  /** `offline`: a clean stop says so on the broker; a process that lost the lead leaves quietly. */
  private async stopLeading(offline: boolean): Promise<void> {
    const lead = this.lead;
    this.lead = null;
    lead?.controller.abort();
    await Promise.all(lead?.loops ?? []);
    await this.session.stop({ offline });
    if (!offline) this.feed.detail = 'standby: another process holds the publisher lock';
  }

  /** Prices, the cheapest hours, costs, the portfolio and the chain differences at every quarter hour of the clock. */
  private async quarters(signal: AbortSignal): Promise<void> {
    let last = -1;
    while (!signal.aborted) {
      const now = this.deps.clock.now().getTime();
      const quarter = Math.floor(now / QUARTER_MS);
      if (quarter !== last) {
        last = quarter;
        await this.figures();
      }
      const untilNext = (quarter + 1) * QUARTER_MS - now;
      await sleep(Math.min(untilNext + 20, this.opts.recheckMs), signal);
    }
  }

  /** Prices, the cheapest hours, and with MQTT_PRIVATE the costs, the portfolio and the watched wallets. */
  private figures(): Promise<void> {
    this.figuresTurn = this.figuresTurn.then(() =>
      this.refresh('prices', async () => {
        this.publisher.update(await this.deps.reader.power());
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

  private async feeds(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A feed's first round (the household's charges loading at a first start) is no problem yet.
      const updates = this.deps.health
        .all()
        .filter((f) => f !== this.feed)
        .map((f) => ({ entity: feedEntity(f.name), state: problemState(f.ok || f.starting) }));
      this.publisher.update(updates);
      await sleep(this.opts.feedsIntervalMs, signal);
    }
  }

  /** Home Assistant came (back): everything again. A retained birth came with our own subscribe. */
  private heard(topic: string, payload: string, retained: boolean): void {
    if (topic !== birthTopic(this.deps.naming) || payload !== 'online' || retained) return;
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
