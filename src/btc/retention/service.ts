import type { Config } from '../../config.js';
import type { Database } from '../../db/connect.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { sleep } from '../../shared/sleep.js';
import { pruneMinuteCandles } from '../candles/repository.js';
import { pruneIdempotencyKeys } from '../ledger/idempotency.js';
import { foldQuotes } from '../market/repository.js';
import * as repo from './repository.js';

export interface RetentionOptions {
  /** Hours of quotes folded per statement (about 360 quotes an hour at the 10 s poll). */
  quoteHoursPerBatch: number;
  /** Rows deleted per statement. */
  rowsPerBatch: number;
  /** Pause between batches, so that other queries (on PGlite, one connection) get their turn. */
  pauseMs: number;
}

export const DEFAULT_RETENTION_OPTIONS: RetentionOptions = {
  quoteHoursPerBatch: 1,
  rowsPerBatch: 1_000,
  pauseMs: 5,
};

export interface RetentionDeps {
  db: Db;
  /** PGlite's WAL is checkpointed after a run; a server checkpoints on its own. */
  kind: Database['kind'];
  clock: Clock;
  retention: Config['retention'];
  /** A run without a signal of its own stops at shutdown. */
  shutdown: AbortSignal;
}

export interface RetentionRun {
  quotesFolded: number;
  minuteCandlesDeleted: number;
  idempotencyKeysDeleted: number;
  batches: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Keeps the feed tables bounded: quotes older than the retention folded into hourly rows,
 * 1-minute candles and idempotency keys past theirs deleted. Each statement handles one small
 * batch in its own transaction; row locks on old rows are all it takes, which no reader waits on.
 */
export class RetentionService {
  constructor(
    private readonly deps: RetentionDeps,
    private readonly opts: RetentionOptions = DEFAULT_RETENTION_OPTIONS,
  ) {}

  /** The cutoffs at `now`; quotes are folded by whole UTC hours only. */
  cutoffs(now: Date): { quotes: Date; minuteCandles: Date; idempotencyKeys: Date } {
    const r = this.deps.retention;
    const t = now.getTime();
    return {
      quotes: new Date(Math.floor((t - r.quoteDays * DAY_MS) / HOUR_MS) * HOUR_MS),
      minuteCandles: new Date(t - r.minuteCandleDays * DAY_MS),
      idempotencyKeys: new Date(t - r.idempotencyKeyHours * HOUR_MS),
    };
  }

  /** One pass over every table until nothing is past its retention (or the signal aborts). */
  async run(signal: AbortSignal = this.deps.shutdown): Promise<RetentionRun> {
    const { db } = this.deps;
    const cut = this.cutoffs(this.deps.clock.now());
    const { quoteHoursPerBatch: hours, rowsPerBatch: rows } = this.opts;
    const out: RetentionRun = {
      quotesFolded: 0,
      minuteCandlesDeleted: 0,
      idempotencyKeysDeleted: 0,
      batches: 0,
    };
    type Count = Exclude<keyof RetentionRun, 'batches'>;
    /** Batches until one comes back short (quotes: empty, since an hour varies in size). */
    const drain = async (count: Count, step: () => Promise<number>, full: (n: number) => boolean) => {
      while (!signal.aborted) {
        const n = await step();
        out.batches++;
        out[count] += n;
        if (!full(n)) return;
        await sleep(this.opts.pauseMs, signal);
      }
    };
    await drain(
      'quotesFolded',
      () => foldQuotes(db, cut.quotes, hours),
      (n) => n > 0,
    );
    await drain(
      'minuteCandlesDeleted',
      () => pruneMinuteCandles(db, cut.minuteCandles, rows),
      (n) => n === rows,
    );
    await drain(
      'idempotencyKeysDeleted',
      () => pruneIdempotencyKeys(db, cut.idempotencyKeys, rows),
      (n) => n === rows,
    );
    for (const table of repo.VACUUMED) {
      if (signal.aborted) break;
      await repo.vacuumTable(db, table);
    }
    if (this.deps.kind === 'pglite' && !signal.aborted) await repo.checkpoint(db);
    return out;
  }
}
