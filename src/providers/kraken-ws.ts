import { Type, type Static } from 'typebox';
import WebSocket from 'ws';
import type { FeedHealth } from '../shared/health.js';
import type { Clock } from '../shared/clock.js';
import { sleep } from '../shared/sleep.js';
import { answer } from './answer.js';
import type { CallBudget } from './budget.js';
import { KRAKEN } from './kraken-ohlc.js';
import { BTC_FIAT, CLOCK_SKEW_MS, JumpGuard, futureRefusal } from './plausible.js';

/** One symbol's ticker as Kraken WS v2 sends it; prices are JSON numbers on the wire. */
export interface KrakenTick {
  symbol: string;
  last: number;
  bid: number | null;
  ask: number | null;
  /** The provider's timestamp when it sent one (older captures lack it), else null. */
  timestamp: Date | null;
}

export type KrakenMessage =
  | { kind: 'ticker'; ticks: KrakenTick[] }
  | { kind: 'heartbeat' }
  | { kind: 'status'; system: string }
  | { kind: 'subscribed'; symbol: string }
  | { kind: 'subscribe-failed'; error: string }
  | { kind: 'other' };

export class MalformedMessage extends Error {}

/** One symbol's ticker in a ticker frame; its other fields are not read. */
const Tick = Type.Object({
  symbol: Type.String({ 'x-refused': 'is not a symbol' }),
  last: Type.Number({ exclusiveMinimum: 0, 'x-refused': 'is not a price' }),
  bid: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  ask: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  /** Older captures lack it. */
  timestamp: Type.Optional(Type.String()),
});
/** The frames of the v2 API that are read; any other channel or method is passed over. */
const Frames = {
  ticker: answer(
    KRAKEN,
    Type.Object({
      channel: Type.Literal('ticker'),
      type: Type.Union([Type.Literal('snapshot'), Type.Literal('update')]),
      data: Type.Array(Tick, { 'x-refused': 'is not a list of ticks' }),
    }),
  ),
  heartbeat: answer(KRAKEN, Type.Object({ channel: Type.Literal('heartbeat') })),
  status: answer(
    KRAKEN,
    Type.Object({
      channel: Type.Literal('status'),
      data: Type.Array(Type.Object({ system: Type.String() }), { minItems: 1 }),
    }),
  ),
  subscribe: answer(
    KRAKEN,
    Type.Object({
      method: Type.Literal('subscribe'),
      success: Type.Optional(Type.Boolean()),
      result: Type.Optional(Type.Object({ symbol: Type.Optional(Type.String()) })),
      error: Type.Optional(Type.String()),
    }),
  ),
};

/**
 * Parses one text frame. Unknown channels, methods and fields are 'other' or ignored; only
 * frames that are not JSON objects, or ticker frames without usable prices, are malformed.
 */
export function parseKrakenMessage(text: string): KrakenMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    throw new MalformedMessage(`not JSON: ${text.slice(0, 60)}`);
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
    throw new MalformedMessage('not a JSON object');
  if (Frames.heartbeat.is(msg)) return { kind: 'heartbeat' };
  const { channel, type } = msg as Record<string, unknown>;
  if (channel === 'ticker' && (type === 'snapshot' || type === 'update')) {
    if (!Frames.ticker.is(msg)) throw new MalformedMessage(`ticker frame at ${Frames.ticker.refusal(msg)}`);
    return { kind: 'ticker', ticks: msg.data.map(tick) };
  }
  if (Frames.status.is(msg)) return { kind: 'status', system: msg.data[0]!.system };
  if (Frames.subscribe.is(msg))
    return msg.success === true
      ? { kind: 'subscribed', symbol: msg.result?.symbol ?? '' }
      : { kind: 'subscribe-failed', error: msg.error ?? 'subscribe failed' };
  return { kind: 'other' };
}

function tick(t: Static<typeof Tick>): KrakenTick {
  const at = t.timestamp === undefined ? null : new Date(t.timestamp);
  return {
    symbol: t.symbol,
    last: t.last,
    bid: t.bid ?? null,
    ask: t.ask ?? null,
    timestamp: at && !Number.isNaN(at.getTime()) ? at : null,
  };
}

export function subscribeRequest(symbols: readonly string[], reqId: number) {
  return {
    method: 'subscribe',
    params: { channel: 'ticker', symbol: [...symbols], event_trigger: 'trades', snapshot: true },
    req_id: reqId,
  };
}

export interface KrakenTickerOptions {
  url: string;
  symbols: readonly string[];
  onTick: (tick: KrakenTick, receivedAt: Date) => void;
  health: FeedHealth;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Receive times and every time decision. */
  clock: Clock;
  /** Connection attempts: Kraken limits connection rates, so every attempt takes a slot. */
  budget: CallBudget;
  /** A larger message closes the connection (PROVIDER_MAX_BYTES). */
  maxBytes: number;
  /** No message at all for this long (Kraken sends 1 Hz heartbeats) means the connection is dead. */
  watchdogMs?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
}

/**
 * One WebSocket to the Kraken v2 ticker channel, kept alive: a watchdog closes a silent
 * connection, and reconnects follow exponential backoff with full jitter, capped by a rolling
 * window of attempts; each new connection subscribes again.
 */
export class KrakenTickerClient {
  malformed = 0;
  private socket: WebSocket | null = null;
  private running = false;
  private failures = 0;
  private watchdog: NodeJS.Timeout | null = null;
  /** Aborted by stop(): ends the wait before a reconnect. */
  private stopping = new AbortController();
  private reqId = 0;
  /** A price more than 2× from the symbol's last accepted one is skipped until a second tick confirms it. */
  private readonly guard = new JumpGuard();
  private readonly o: Required<KrakenTickerOptions>;

  constructor(opts: KrakenTickerOptions) {
    this.o = {
      watchdogMs: 5_000,
      initialBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      random: Math.random,
      ...opts,
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.clearTimers();
    const s = this.socket;
    this.socket = null;
    this.o.health.connected = false;
    if (!s || s.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      s.once('close', () => resolve());
      s.terminate();
    });
  }

  /** Connects when the budget has a slot; otherwise waits for one (the budget says how long). */
  private connect(): void {
    if (!this.running) return;
    const wait = this.o.budget.tryTake();
    if (wait > 0) return this.later(wait);
    const socket = new WebSocket(this.o.url, {
      handshakeTimeout: this.o.watchdogMs,
      maxPayload: this.o.maxBytes,
    });
    this.socket = socket;
    this.armWatchdog(socket);
    socket.on('open', () => {
      socket.send(JSON.stringify(subscribeRequest(this.o.symbols, ++this.reqId)));
    });
    socket.on('message', (data, isBinary) => {
      if (socket !== this.socket) return;
      this.armWatchdog(socket);
      const at = this.o.clock.now();
      this.o.health.lastMessageAt = at;
      this.handle(isBinary ? '' : rawText(data), at);
    });
    socket.on('error', (e) => this.o.health.failure(e, this.o.clock.now()));
    socket.on('close', (code) => {
      if (socket !== this.socket) return;
      this.socket = null;
      // a connection the provider ended is an outage too, though no error came with it
      if (this.running && this.o.health.downSince === null)
        this.o.health.failure(new Error(`the connection closed (${code})`), this.o.clock.now());
      this.o.health.connected = false;
      this.scheduleReconnect();
    });
  }

  private handle(text: string, at: Date): void {
    let msg: KrakenMessage;
    try {
      msg = parseKrakenMessage(text);
    } catch (e) {
      this.malformed++;
      this.o.health.detail = `malformed messages skipped: ${this.malformed}`;
      this.o.log.warn({ err: (e as Error).message }, 'spot feed: malformed message skipped');
      return;
    }
    switch (msg.kind) {
      case 'subscribed':
        this.o.health.connected = true;
        this.failures = 0;
        return;
      case 'subscribe-failed':
        this.o.health.failure(new Error(`subscribe failed: ${msg.error}`), at);
        return;
      case 'status':
        if (msg.system && msg.system !== 'online')
          this.o.log.info({ system: msg.system }, 'spot feed: provider status');
        return;
      case 'ticker':
        this.o.health.connected = true;
        this.o.health.success(at);
        this.failures = 0;
        for (const tick of msg.ticks) if (this.trusted(tick, at)) this.o.onTick(tick, at);
        return;
      default:
        return;
    }
  }

  /** The last price known good of a symbol (the latest stored): the first tick is judged against it. */
  accepted(symbol: string, price: string): void {
    this.guard.prime(symbol, price, rangeOf(symbol));
  }

  /**
   * A tick stamped more than CLOCK_SKEW_MS after its receipt, priced outside BTC_FIAT or over 2×
   * from the symbol's last accepted price is skipped and counted. A stamp in the future would be
   * served as the latest price and would move the pruning of stored prices; if this machine's
   * clock is the one that is wrong, /health says so in `last_rejected`.
   */
  private trusted(tick: KrakenTick, receivedAt: Date): boolean {
    const why =
      (tick.timestamp && futureRefusal(`${tick.symbol} tick`, tick.timestamp, receivedAt, CLOCK_SKEW_MS)) ||
      this.guard.check(tick.symbol, tick.last, rangeOf(tick.symbol));
    if (why === null) return true;
    this.o.health.reject(why);
    return false;
  }

  private armWatchdog(socket: WebSocket): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      if (socket !== this.socket) return;
      this.o.health.failure(new Error(`no message for ${this.o.watchdogMs} ms`), this.o.clock.now());
      socket.terminate();
    }, this.o.watchdogMs);
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    this.clearTimers();
    this.failures++;
    const ceiling = Math.min(this.o.maxBackoffMs, this.o.initialBackoffMs * 2 ** (this.failures - 1));
    this.o.health.reconnects++;
    // The budget's window may ask for longer; connect() waits for it.
    this.later(ceiling / 2 + this.o.random() * (ceiling / 2));
  }

  private later(ms: number): void {
    const stopping = this.stopping.signal;
    void sleep(ms, stopping).then(() => {
      if (!stopping.aborted) this.connect();
    });
  }

  private clearTimers(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
  }
}

/** BTC's price in a fiat currency has absolute bounds; other pairs only the 2× check. */
const rangeOf = (symbol: string) => (symbol.startsWith('BTC/') ? BTC_FIAT : undefined);

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
