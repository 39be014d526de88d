import type { AppContext } from '../context.js';
import type { HealthRegistry } from '../shared/health.js';
import type { Clock } from '../shared/clock.js';
import { sleep } from '../shared/sleep.js';
import { ProviderError } from './errors.js';
import type { ProviderDeps } from './http.js';

/**
 * What a caller does when a provider's budget is spent. Background work (a scheduler, a
 * backfill, a job, the rates of a ledger write) waits for the next free slot ('wait'), leaving the
 * budget's `headroom` to the household's own requests. Such a request ('owner': a private route
 * the household calls, POST /metering/sync) waits too, ahead of the background work and with
 * every slot open to it: our own load never refuses it; only a provider that asked us to stay
 * away (its Retry-After) does, at once. An anonymous client's read ('refuse') is refused at once,
 * so the route answers 503 with Retry-After and no call is made, already when only the `reserve`
 * (and the headroom) is left: anonymous readers cannot make the household's work wait.
 */
export type OnBusy = 'wait' | 'owner' | 'refuse';

export interface BudgetLimit {
  /** At most this many calls start in any window of `perMs` milliseconds. */
  calls: number;
  perMs: number;
  /** Where the number comes from, for the docs and the refusal message. */
  source: string;
  /**
   * Slots of every window that a client's read ('refuse') may not take: they are kept for the
   * household's work ('wait', 'owner'). Set where anonymous requests reach the provider.
   */
  reserve?: number;
  /**
   * Slots of every window that background work ('wait') leaves to the household's own requests
   * ('owner'), so that a catch-up taking every slot it may does not hold such a request up.
   */
  headroom?: number;
}

/** A provider's own pause shorter than this is waited out even by a request: a timer's hair. */
const PAUSE_TOLERANCE_MS = 1_000;

/** A call the budget refused: no request was sent; the provider is unavailable until `retryAfterMs`. */
export class BudgetExhausted extends ProviderError {
  constructor(provider: string, retryAfterMs: number, limit: BudgetLimit, kept: number | 'paused' = 0) {
    const spent =
      kept === 'paused'
        ? 'the provider asked us to wait (Retry-After)'
        : kept > 0
          ? `call budget for reads spent (${limit.calls - kept} of ${limit.calls} calls per ${limit.perMs / 1000} s; ${kept} kept for the household's writes and schedules)`
          : `call budget spent (${limit.calls} calls per ${limit.perMs / 1000} s)`;
    super(provider, `${spent}; try again in ${Math.ceil(retryAfterMs / 1000)} s`, {
      status: 429,
      transient: false,
      retryAfterMs,
    });
  }
}

/**
 * One provider's call budget: a sliding window of the start times of the last `calls` calls,
 * on the clock's monotonic scale, so at most `calls` start in any `perMs`. A provider's own
 * 429 with Retry-After pauses the whole budget, so nobody calls it while it blocks us.
 */
export class CallBudget {
  /** Start times of the latest calls, oldest first; never more than `limit.calls`. */
  private readonly starts: number[] = [];
  private pausedUntil = 0;
  refused = 0;

  constructor(
    readonly provider: string,
    readonly limit: BudgetLimit,
    private readonly clock: Clock,
    /** Told of each refusal, so /health can count them per feed. */
    private readonly onRefused: () => void = () => {},
  ) {
    if (!(limit.calls >= 1 && limit.perMs > 0))
      throw new Error(`${provider}: a budget needs calls ≥ 1 and perMs > 0`);
    const reserve = limit.reserve ?? 0;
    const headroom = limit.headroom ?? 0;
    const whole = (n: number) => Number.isInteger(n) && n >= 0;
    if (!(whole(reserve) && whole(headroom) && reserve + headroom < limit.calls))
      throw new Error(
        `${provider}: a budget's reserve and headroom are whole numbers, together below its calls`,
      );
  }

  /**
   * Takes a slot now and answers 0, or answers how many ms until one frees (taking nothing).
   * `keep` slots of the window are left to others: the reserve, when a client's read asks.
   */
  tryTake(keep = 0): number {
    const now = this.clock.monotonicMs();
    while (this.starts.length > 0 && this.starts[0]! <= now - this.limit.perMs) this.starts.shift();
    const allowed = this.limit.calls - keep;
    // the window has room again once the start that fills the allowed share has left it
    const full =
      this.starts.length >= allowed ? this.starts[this.starts.length - allowed]! + this.limit.perMs - now : 0;
    const wait = Math.max(full, this.pausedUntil - now);
    if (wait > 0) return Math.ceil(wait);
    this.starts.push(now);
    return 0;
  }

  /**
   * Takes a slot: waiting for one (`wait`, `owner`; background work keeps the headroom free, so
   * the household's requests get the slots that free first), or refusing with BudgetExhausted.
   */
  async take(onBusy: OnBusy, signal?: AbortSignal): Promise<void> {
    const headroom = this.limit.headroom ?? 0;
    const keep =
      onBusy === 'refuse' ? (this.limit.reserve ?? 0) + headroom : onBusy === 'wait' ? headroom : 0;
    for (;;) {
      if (signal?.aborted) throw new ProviderError(this.provider, 'call cancelled', { transient: false });
      const paused = this.pausedUntil - this.clock.monotonicMs();
      if (onBusy === 'owner' && paused > PAUSE_TOLERANCE_MS) this.refuse(paused, 'paused');
      const wait = this.tryTake(keep);
      if (wait === 0) return;
      if (onBusy === 'refuse') this.refuse(wait, keep);
      await sleep(wait, signal ?? NEVER);
    }
  }

  private refuse(retryAfterMs: number, kept: number | 'paused'): never {
    this.refused++;
    this.onRefused();
    throw new BudgetExhausted(this.provider, retryAfterMs, this.limit, kept);
  }

  /** The provider asked us to stay away this long (a 429 or 503 with Retry-After). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.monotonicMs() + ms);
  }
}

const NEVER = new AbortController().signal;

/**
 * The limits of each provider, as the providers publish them, and the
 * share of it this service uses. Changing one is a code change with its source beside it.
 */
export const BUDGET_LIMITS = {
  /**
   * Published: 40 requests per 10 s per IP, then about a 5-minute block. Three quarters of it;
   * a third of that kept from anonymous readers (/api/elprice, /api/prices of a day not stored).
   */
  energidataservice: {
    calls: 30,
    perMs: 10_000,
    reserve: 10,
    source: 'Energi Data Service: 40 requests / 10 s per IP (api guide)',
  },
  /**
   * Published: 120 calls per minute per IP for data endpoints. Half of it; the daily catch-up
   * (about four calls a day, 31 days a run) leaves 12 a minute to the household's own syncs.
   */
  eloverblik: {
    calls: 60,
    perMs: 60_000,
    headroom: 12,
    source: 'Eloverblik: 120 calls / min per IP (data endpoints)',
  },
  /** Published: 2 calls per minute per IP for the token endpoint; the token is cached for 24 h. */
  eloverblikToken: { calls: 2, perMs: 60_000, source: 'Eloverblik: 2 calls / min per IP (token endpoint)' },
  /**
   * No published limit (fair use, answers are CDN-cached): one call a second on average; a third
   * kept from anonymous readers (/api/currencies/:date of a day not stored) for the ledger's writes.
   */
  frankfurter: { calls: 60, perMs: 60_000, reserve: 20, source: 'Frankfurter: no published limit; fair use' },
  /** Published: public REST endpoints about 1 request per second per IP. */
  krakenRest: { calls: 1, perMs: 1_000, source: 'Kraken REST: public endpoints about 1 request / s per IP' },
  /** Kraken limits connection rates ("a few per minute"); four connection attempts a minute. */
  krakenWs: { calls: 4, perMs: 60_000, source: 'Kraken WS: keep reconnects at a few per minute' },
  /**
   * The household's own Esplora (mempool, electrs): no published limit, and a scan asks it once
   * per address and per page of 25 transactions. Ten calls a second keeps a small node responsive.
   */
  esplora: { calls: 600, perMs: 60_000, source: "the household's own Esplora: no published limit" },
  /** Published: 250 / min for /v1/rates and for quotes, each. Two fifths of either, for both together. */
  strike: { calls: 100, perMs: 60_000, source: 'Strike: 250 requests / min for rates and for quotes' },
} as const satisfies Record<string, BudgetLimit>;

export type ProviderName = keyof typeof BUDGET_LIMITS;
export type ProviderBudgets = Record<ProviderName, CallBudget>;

/** The /health feed each provider's refusals are counted in. */
const FEED_OF: Record<ProviderName, string> = {
  energidataservice: 'prices',
  eloverblik: 'metering',
  eloverblikToken: 'metering',
  esplora: 'chain',
  frankfurter: 'rates',
  krakenRest: 'ohlc',
  krakenWs: 'spot',
  strike: 'quote',
};

/**
 * One budget per provider for the whole process, whoever calls (scheduler, read-through,
 * command); the runtime creates them once and puts them in the context.
 */
export function createProviderBudgets(
  clock: Clock,
  health?: HealthRegistry,
  limits: Partial<Record<ProviderName, BudgetLimit>> = {},
): ProviderBudgets {
  const out = {} as ProviderBudgets;
  for (const name of Object.keys(BUDGET_LIMITS) as ProviderName[])
    out[name] = new CallBudget(name, limits[name] ?? BUDGET_LIMITS[name], clock, () => {
      if (health) health.feed(FEED_OF[name]).budgetRefusals++;
    });
  return out;
}

/** The clock, the named provider's budget and the body cap, for an adapter built from the context. */
export function providerDeps(
  ctx: Pick<AppContext, 'clock' | 'budgets' | 'config'>,
  name: ProviderName,
): ProviderDeps {
  return { clock: ctx.clock, budget: ctx.budgets[name], maxBytes: ctx.config.providerMaxBytes };
}
