import type { Clock } from '../../shared/clock.js';
import { unavailable } from '../../shared/refusal.js';
import { sleep } from '../../shared/sleep.js';

/** How long a request that needs the household's charges waits for their first refresh. */
export const CHARGES_WAIT_MS = 10_000;
/** Retry-After while the first refresh runs. */
const LOADING_RETRY_S = 5;

export type ChargesState =
  | { state: 'known' }
  | { state: 'loading'; since: Date }
  | { state: 'failed'; error: string; retryAt: Date | null };

/**
 * Whether the household's charges are known: every figure computed with them (tariffs of the
 * hours, consumer prices, costs, the bill, the cheapest hours, the charges themselves) is answered
 * only then. They are known once a refresh succeeded, or at start when an earlier one stored them;
 * until then (a first start) a caller waits a bounded time for the first refresh and is refused
 * with a Retry-After, never answered with figures that lack the charges. Once known they stay
 * known: a later failed refresh keeps what is stored.
 */
export class ChargesReadiness {
  private current: ChargesState;
  private waiters = new Set<() => void>();

  constructor(
    private readonly deps: { clock: Clock; waitMs?: number; shutdown?: AbortSignal },
    initial: ChargesState = { state: 'known' },
  ) {
    this.current = initial;
  }

  get state(): ChargesState {
    return this.current;
  }

  get known(): boolean {
    return this.current.state === 'known';
  }

  /** A refresh runs while the charges are not known yet. */
  loading(): void {
    if (this.current.state !== 'known') this.current = { state: 'loading', since: this.deps.clock.now() };
  }

  ready(): void {
    if (this.known) return;
    this.current = { state: 'known' };
    this.wake();
  }

  /** The refresh failed while nothing was known: callers are refused at once until the next one. */
  failed(error: unknown, retryAt: Date | null = null): void {
    if (this.known) return;
    this.current = {
      state: 'failed',
      error: error instanceof Error ? error.message : String(error),
      retryAt,
    };
    this.wake();
  }

  /**
   * Returns once the charges are known; while their first refresh runs it waits for it, at most
   * the bound (or until `signal`, the request's deadline, aborts), then refuses: unavailable,
   * with the seconds after which asking again may succeed.
   */
  async need(signal?: AbortSignal): Promise<void> {
    if (this.known) return;
    if (this.current.state === 'loading') await this.settled(signal);
    const s = this.current;
    if (s.state === 'known') return;
    if (s.state === 'loading')
      throw unavailable(
        `the household's charges are loading (their first refresh, since ${s.since.toISOString()}); ask again shortly`,
        LOADING_RETRY_S,
      );
    const now = this.deps.clock.now().getTime();
    const retryS = s.retryAt === null ? 60 : Math.max(1, Math.ceil((s.retryAt.getTime() - now) / 1000));
    throw unavailable(
      `the household's charges are not known yet: their first refresh failed (${s.error}); it is retried${s.retryAt ? ` at ${s.retryAt.toISOString()}` : ''}`,
      retryS,
    );
  }

  /** For /health: what a caller that needs the charges gets now. */
  describe(): string | null {
    const s = this.current;
    if (s.state === 'loading')
      return `starting: loading the household's charges (first refresh, since ${s.since.toISOString()}); answers that need them wait up to ${this.waitMs / 1000} s, then 503 with Retry-After`;
    if (s.state === 'failed')
      return `the household's charges are not known yet (first refresh failed: ${s.error}); answers that need them are 503 until a refresh succeeds`;
    return null;
  }

  private get waitMs(): number {
    return this.deps.waitMs ?? CHARGES_WAIT_MS;
  }

  private async settled(signal?: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const done = new Promise<void>((resolve) => {
      const wake = () => resolve();
      this.waiters.add(wake);
      stop.signal.addEventListener('abort', () => this.waiters.delete(wake), { once: true });
    });
    // A stop ends the wait too: a request in flight is answered at once rather than holding the stop.
    const limit = AbortSignal.any([
      stop.signal,
      ...[signal, this.deps.shutdown].filter((s) => s !== undefined),
    ]);
    await Promise.race([done, sleep(this.waitMs, limit)]);
    stop.abort();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
    this.waiters.clear();
  }
}
