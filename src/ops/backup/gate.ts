import { untilAborted } from '../../shared/abort.js';

/** Without a backup made yet in this process, the time one is expected to take. */
const FIRST_GUESS_MS = 5_000;

/**
 * One backup made at a time per data folder, whichever BackupService asks: each copy takes the
 * room of the database once more, and each holds the database's queries while it is copied.
 * It is held for the copy and the packing, never while a client reads the result.
 */
export class BackupGate {
  private static readonly gates = new Map<string, BackupGate>();

  static of(dataDir: string): BackupGate {
    let gate = BackupGate.gates.get(dataDir);
    if (!gate) BackupGate.gates.set(dataDir, (gate = new BackupGate()));
    return gate;
  }

  private held: Promise<void> | null = null;
  private heldSince = 0;
  private lastMs: number | null = null;

  get busy(): boolean {
    return this.held !== null;
  }

  /** The release function, or null at once when a backup is being made; `timed` counts it for retryAfterS. */
  tryTake(timed = true): (() => void) | null {
    if (this.held) return null;
    let free!: () => void;
    this.held = new Promise<void>((r) => (free = r));
    this.heldSince = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (timed) this.lastMs = performance.now() - this.heldSince;
      this.held = null;
      free();
    };
  }

  /** Waits for its turn (or the signal). */
  async take(signal?: AbortSignal, timed = true): Promise<() => void> {
    for (;;) {
      const release = this.tryTake(timed);
      if (release) return release;
      await untilAborted(this.held ?? Promise.resolve(), signal);
    }
  }

  /** Seconds until the backup being made is likely done, from how long the last one took. */
  retryAfterS(): number {
    const left = (this.lastMs ?? FIRST_GUESS_MS) - (performance.now() - this.heldSince);
    return Math.min(60, Math.max(1, Math.ceil(left / 1000)));
  }
}
