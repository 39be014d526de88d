import type { WebSocket } from 'ws';
import { FakeWsServer } from './ws.js';

/** Kraken WS v2 frames (docs/providers.md), generated. */
export const kraken = {
  status: (system = 'online') => ({
    channel: 'status',
    type: 'update',
    data: [{ api_version: 'v2', connection_id: 4242, system, version: '2.0.10' }],
  }),
  ack: (symbol: string, reqId: number) => ({
    method: 'subscribe',
    req_id: reqId,
    result: { channel: 'ticker', event_trigger: 'trades', snapshot: true, symbol },
    success: true,
    time_in: new Date().toISOString(),
    time_out: new Date().toISOString(),
  }),
  ticker: (
    type: 'snapshot' | 'update',
    symbol: string,
    last: number,
    extra: Record<string, unknown> = {},
  ) => ({
    channel: 'ticker',
    type,
    data: [
      {
        symbol,
        bid: last - 0.1,
        bid_qty: 0.5,
        ask: last,
        ask_qty: 0.25,
        last,
        volume: 627.8568445,
        vwap: last + 100,
        low: last - 1000,
        high: last + 1000,
        change: -243.3,
        change_pct: -0.37,
        ...extra,
      },
    ],
  }),
  heartbeat: () => ({ channel: 'heartbeat' }),
};

interface SubscribeRequest {
  method?: string;
  params?: { channel?: string; symbol?: string[] };
  req_id?: number;
}

/**
 * A Kraken ticker server: status on connect; on subscribe one ack and one snapshot per symbol;
 * heartbeats every `heartbeatMs` unless silenced. Prices per symbol are set by the test.
 */
export class FakeKraken {
  readonly prices = new Map<string, number>([
    ['BTC/USD', 65000.5],
    ['BTC/EUR', 60000.1],
  ]);
  subscribes = 0;
  /** When true the server accepts connections but never says anything (a hung connection). */
  silent = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    readonly ws: FakeWsServer,
    private readonly heartbeatMs: number,
  ) {
    ws.onConnection((socket) => this.serve(socket));
  }

  static async start(opts: { heartbeatMs?: number } = {}): Promise<FakeKraken> {
    return new FakeKraken(await FakeWsServer.start(), opts.heartbeatMs ?? 200);
  }

  get url(): string {
    return this.ws.url;
  }

  /** Sends an update for the symbol to every subscribed client. */
  tick(symbol: string, last: number, extra: Record<string, unknown> = {}): void {
    this.prices.set(symbol, last);
    this.ws.broadcast(kraken.ticker('update', symbol, last, extra));
  }

  send(raw: string | object): void {
    this.ws.broadcast(raw);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.ws.close();
  }

  private serve(socket: WebSocket): void {
    if (this.silent) return;
    socket.send(JSON.stringify(kraken.status()));
    socket.on('message', (data) => {
      let req: SubscribeRequest;
      try {
        req = JSON.parse((data as Buffer).toString()) as SubscribeRequest;
      } catch {
        return;
      }
      if (req.method !== 'subscribe' || req.params?.channel !== 'ticker' || this.silent) return;
      this.subscribes++;
      for (const symbol of req.params.symbol ?? [])
        socket.send(JSON.stringify(kraken.ack(symbol, req.req_id ?? 0)));
      for (const symbol of req.params.symbol ?? []) {
        const last = this.prices.get(symbol);
        if (last !== undefined) socket.send(JSON.stringify(kraken.ticker('snapshot', symbol, last)));
      }
      const beat = setInterval(() => {
        if (!this.silent && socket.readyState === socket.OPEN)
          socket.send(JSON.stringify(kraken.heartbeat()));
      }, this.heartbeatMs);
      this.timers.add(beat);
      socket.on('close', () => {
        clearInterval(beat);
        this.timers.delete(beat);
      });
    });
  }
}
