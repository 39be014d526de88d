import { sleep } from '../shared/sleep.js';

/** A job's wait that an event can end early; pokes that come while nobody waits are kept for the next wait. */
export class Wake {
  private poked = false;
  private waiting: AbortController | null = null;

  poke(): void {
    this.poked = true;
    this.waiting?.abort();
  }

  /** Waits `ms` or until poked or `signal` aborts; says whether it was poked. */
  async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.poked) {
      this.waiting = new AbortController();
      await sleep(ms, AbortSignal.any([signal, this.waiting.signal]));
      this.waiting = null;
    }
    const poked = this.poked;
    this.poked = false;
    return poked;
  }
}
