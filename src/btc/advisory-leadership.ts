import type pg from 'pg';
import type { Logger } from 'pino';
import { LOCK_KEYS } from '../db/lock-keys.js';
import type { Leadership } from './leadership.js';

/** The advisory lock whose holder runs the btc pollers. */
export const BTC_POLLERS_LOCK_KEY = LOCK_KEYS.btcPollers;

/**
 * Leadership by a PostgreSQL session advisory lock on a dedicated connection: the holder leads
 * until its connection ends (process death ends it, releasing the lock); the others retry
 * pg_try_advisory_lock every interval, so a dead leader is replaced within about that long.
 */
export class AdvisoryLeadership implements Leadership {
  private leader = false;
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private readonly listeners = new Set<(leader: boolean) => void>();

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly opts: { log: Logger; key?: number; intervalMs?: number },
  ) {}

  isLeader(): boolean {
    return this.leader;
  }

  watch(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    listener(this.leader);
    return () => this.listeners.delete(listener);
  }

  /** Makes the first attempt before returning, so a lone process leads at once. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.tick();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.set(false);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private async tick(): Promise<void> {
    try {
      const client = await this.connect();
      if (this.leader) {
        await client.query('select 1');
      } else {
        const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [
          this.opts.key ?? BTC_POLLERS_LOCK_KEY,
        ]);
        if (r.rows[0]?.ok && this.running) this.set(true);
      }
    } catch (e) {
      this.opts.log.warn({ err: (e as Error).message }, 'leadership: lock connection failed');
      this.lose();
    }
    if (this.running) this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs ?? 2_000);
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    // loaded here, so that a process on the embedded database never loads the server's driver
    const { default: driver } = await import('pg');
    const client = new driver.Client({ ...this.connection, application_name: 'satwatt-leadership' });
    client.on('error', () => this.lose());
    client.on('end', () => {
      if (this.client === client) this.lose();
    });
    this.client = client;
    await client.connect();
    return client;
  }

  private lose(): void {
    const c = this.client;
    this.client = null;
    void c?.end().catch(() => {});
    this.set(false);
  }

  private set(leader: boolean): void {
    if (this.leader === leader) return;
    this.leader = leader;
    this.opts.log.info(
      { leader },
      leader ? 'leadership: this process polls' : 'leadership: this process follows',
    );
    for (const l of this.listeners) l(leader);
  }
}
