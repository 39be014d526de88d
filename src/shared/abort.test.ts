import { describe, expect, it } from 'vitest';
import { untilAborted } from './abort.js';

/** The rejections Node would report as unhandled (and end the process for) while `fn` runs. */
async function unhandledDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onUnhandled = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return seen;
}

describe('untilAborted', () => {
  it('rejects at once with the reason of a signal aborted before the call, and the work failing later is no unhandled rejection', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopping'));
    const seen = await unhandledDuring(async () => {
      const work = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('call cancelled')), 5),
      );
      await expect(untilAborted(work, controller.signal)).rejects.toThrow('stopping');
    });
    expect(seen).toEqual([]);
  });

  it('rejects when the signal aborts while waiting; the work goes on and its answer is its own', async () => {
    const controller = new AbortController();
    let finish!: (v: number) => void;
    const work = new Promise<number>((resolve) => (finish = resolve));
    const waiting = untilAborted(work, controller.signal);
    controller.abort(new Error('request left'));
    await expect(waiting).rejects.toThrow('request left');
    finish(7);
    await expect(work).resolves.toBe(7);
  });

  it('settles as the work does when the signal never aborts', async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve(3), signal)).resolves.toBe(3);
    await expect(untilAborted(Promise.reject(new Error('failed')), signal)).rejects.toThrow('failed');
  });
});
