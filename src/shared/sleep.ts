/** Waits `ms`, or less when `signal` aborts; never rejects, so a poller simply sees that it should stop. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  // a signal aborted before the call fires no abort event for it
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
