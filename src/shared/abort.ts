/**
 * How a request's deadline reaches its work. A route passes `request.deadline.signal` (aborted when the
 * request runs out of REQUEST_TIMEOUT_MS or its client goes away) to its service as the last
 * argument; the service hands it to provider calls (`either(shutdown, signal)`), checks it
 * before it starts writing, and waits for work it shares with other callers through
 * `untilAborted`, so the one caller stops waiting while the shared work goes on for the rest.
 */

/** Settles as `work` does, or rejects with the signal's reason as soon as it aborts. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    // The work already started: its failure is its other waiters' to hear, or nobody's, never
    // an unhandled rejection that ends the process (a stop during a round did).
    work.catch(() => {});
    return Promise.reject(reason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(reason(signal));
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', stop);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** One signal that aborts when either does; the shutdown signal alone when there is no request. */
export function either(shutdown: AbortSignal, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([shutdown, signal]) : shutdown;
}

function reason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('the work was cancelled');
}
