import type { Clock } from '../shared/clock.js';

/**
 * Runs `work` at most once per interval on the clock's monotonic scale: a poke inside the
 * interval is kept and runs once at its end, however many came; a poke during a run runs it
 * once more after.
 */
export class Throttle {
  private last = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
    private readonly work: () => Promise<void>,
  ) {}

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    const wait = this.last + this.intervalMs - this.clock.monotonicMs();
    if (wait <= 0) this.fire();
    else this.timer = setTimeout(() => this.fire(), wait);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private fire(): void {
    this.timer = null;
    this.last = this.clock.monotonicMs();
    this.running = this.work()
      .catch(() => {})
      .finally(() => {
        this.running = null;
        if (!this.again) return;
        this.again = false;
        this.poke();
      });
  }
}
