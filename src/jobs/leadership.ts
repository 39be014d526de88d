import type { Logger } from 'pino';
import type { PgConnection } from '../config.js';
import { LOCK_KEYS } from '../db/lock-keys.js';

/** The work that one process runs for all that share a database, each under an advisory lock of its own. */
export type LockName = 'btcPollers' | 'mqttPublisher' | 'meteringSync';

/** Whether this process holds one lock, and so runs what it guards. */
export interface Leadership {
  isLeader(): boolean;
  /** Calls back at once with the current state and on every change; returns the unsubscribe function. */
  watch(listener: (leader: boolean) => void): () => void;
}

/** Every lock of the process: held (or tried) from `start` until `stop`. */
export interface Leaderships {
  /** This process's leadership of `lock`; asked for before `start`, the lock is tried from the first attempt. */
  of(lock: LockName): Leadership;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const ALWAYS_LEADER: Leadership = {
  isLeader: () => true,
  watch: (listener) => {
    listener(true);
    return () => {};
  },
};

/**
 * This process leads everything (the embedded database, which has one process), except the locks
 * given in `leaders` (tests hand over a leadership they switch).
 */
export function soleLeaderships(leaders: Partial<Record<LockName, Leadership>> = {}): Leaderships {
  return { of: (lock) => leaders[lock] ?? ALWAYS_LEADER, start: async () => {}, stop: async () => {} };
}

class LockState implements Leadership {
  held = false;
  readonly listeners = new Set<(leader: boolean) => void>();

  constructor(readonly key: number) {}

  isLeader(): boolean {
    return this.held;
  }

  watch(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    listener(this.held);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Leadership by PostgreSQL session advisory locks, every lock on one dedicated connection: its
 * holder leads until the connection ends (a process's death ends it, releasing every lock it
 * held); the locks not held are tried again every interval, so a dead leader is replaced within
 * about that long. Only the locks asked for are tried: a process that runs no btc service never
 * keeps the btc pollers from one that does.
 */
export class AdvisoryLeaderships implements Leaderships {
  private readonly locks = new Map<LockName, LockState>();
  private client: import('pg').Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly connection: PgConnection,
    private readonly opts: { log: Logger; intervalMs?: number },
  ) {}

  of(lock: LockName): Leadership {
    let state = this.locks.get(lock);
    if (!state) this.locks.set(lock, (state = new LockState(LOCK_KEYS[lock])));
    return state;
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
    for (const [name, state] of this.locks) this.set(name, state, false);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private async tick(): Promise<void> {
    try {
      const wanted = [...this.locks].filter(([, s]) => !s.held);
      const client = await this.connect();
      if (wanted.length === 0) await client.query('select 1');
      else {
        const r = await client.query<{ key: number; ok: boolean }>(
          'select key::int as key, pg_try_advisory_lock(key) as ok from unnest($1::bigint[]) as key',
          [wanted.map(([, s]) => s.key)],
        );
        const won = new Set(r.rows.filter((row) => row.ok).map((row) => row.key));
        for (const [name, state] of wanted)
          if (won.has(state.key) && this.running) this.set(name, state, true);
      }
    } catch (e) {
      this.opts.log.warn({ err: (e as Error).message }, 'leadership: lock connection failed');
      this.lose();
    }
    if (this.running) this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs ?? 2_000);
  }

  private async connect(): Promise<import('pg').Client> {
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

  /** The connection is gone, and every lock with it. */
  private lose(): void {
    const c = this.client;
    this.client = null;
    void c?.end().catch(() => {});
    for (const [name, state] of this.locks) this.set(name, state, false);
  }

  private set(name: LockName, state: LockState, leader: boolean): void {
    if (state.held === leader) return;
    state.held = leader;
    this.opts.log.info(
      { lock: name, leader },
      leader ? `leadership: this process holds ${name}` : `leadership: another process holds ${name}`,
    );
    for (const l of state.listeners) l(leader);
  }
}

/** The process's leaderships: advisory locks on a PostgreSQL server, this process alone on the embedded database. */
export function createLeaderships(
  server: PgConnection | null,
  opts: { log: Logger; intervalMs?: number },
): Leaderships {
  return server ? new AdvisoryLeaderships(server, opts) : soleLeaderships();
}
