import pg from 'pg';
import { sleep } from '../shared/sleep.js';

export type NotificationHandler = (payload: string | undefined) => void;

export interface ListenerState {
  connected: boolean;
  /** Why the connection is down, while it is. */
  error: string | null;
}

export interface ListenerBackoff {
  initialMs: number;
  maxMs: number;
}

/**
 * The LISTEN connection to a PostgreSQL server. When the server drops it (a restart, a failover,
 * pg_terminate_backend) it reconnects with backoff, LISTENs again on every channel, and then calls
 * each handler with `undefined`: notifications sent while it was down are lost, so a handler
 * re-reads what it follows. Its state goes to the watchers (shown in /health as a feed).
 */
export class PgListener {
  private client: pg.Client | null = null;
  private first: Promise<pg.Client> | null = null;
  private reconnecting = false;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly watchers = new Set<(state: ListenerState) => void>();
  private readonly closing = new AbortController();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly backoff: ListenerBackoff = { initialMs: 200, maxMs: 30_000 },
  ) {}

  watch(watcher: (state: ListenerState) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The first connection is made here, and its failure is the caller's (a start that fails). */
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const set = this.handlers.get(channel) ?? new Set<NotificationHandler>();
    this.handlers.set(channel, set);
    const isNew = set.size === 0;
    set.add(handler);
    try {
      if (!this.client && !this.reconnecting) await (this.first ??= this.connect());
      // while reconnecting, the new connection LISTENs on every channel in the map
      if (isNew && this.client) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      set.delete(handler);
      this.first = null;
      throw e;
    }
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.client)
        await this.client.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closing.abort();
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ ...this.config, application_name: 'satwatt-listen' });
    let dropped = false;
    const drop = (e?: unknown) => {
      if (dropped) return;
      dropped = true;
      void client.end().catch(() => {});
      if (this.client === client) this.lost(e ?? new Error('the notification connection ended'));
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (n) => {
      for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? '');
    });
    try {
      await client.connect();
      for (const [channel, set] of this.handlers)
        if (set.size > 0) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      dropped = true;
      await client.end().catch(() => {});
      throw e;
    }
    if (dropped || this.closing.signal.aborted) {
      await client.end().catch(() => {});
      throw new Error('the notification connection ended while it was being set up');
    }
    this.client = client;
    this.emit({ connected: true, error: null });
    return client;
  }

  private lost(e: unknown): void {
    this.client = null;
    if (this.closing.signal.aborted) return;
    this.emit({ connected: false, error: message(e) });
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    let wait = this.backoff.initialMs;
    try {
      while (!this.closing.signal.aborted) {
        await sleep(wait, this.closing.signal);
        if (this.closing.signal.aborted) return;
        try {
          await this.connect();
        } catch (e) {
          this.emit({ connected: false, error: message(e) });
          wait = Math.min(wait * 2, this.backoff.maxMs);
          continue;
        }
        // anything sent while the connection was down is gone: each handler re-reads
        for (const set of this.handlers.values()) for (const h of set) h(undefined);
        return;
      }
    } finally {
      this.reconnecting = false;
    }
  }

  private emit(state: ListenerState): void {
    for (const w of this.watchers) w(state);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
