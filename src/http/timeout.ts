import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's time limit: pass `request.deadline.signal` to the work the request waits for. */
    deadline: Deadline;
  }
}

/** The reason of a request's signal when the request ran out of time. */
export class RequestTimeout extends Error {
  override readonly name = 'RequestTimeout';
  constructor(readonly ms: number) {
    super(`the request took longer than ${ms} ms`);
  }
}

/**
 * A request's limit. Its signal is made on first use: most answers (a cached day, a read) never
 * need one, and an AbortController on every request cost a twentieth of a cached answer's time.
 */
export class Deadline {
  private controller: AbortController | null = null;
  private reason: Error | null = null;

  /** Aborts when the request runs out of time or its client goes away. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get passed(): boolean {
    return this.reason !== null;
  }

  abort(reason: Error): void {
    this.reason ??= reason;
    this.controller?.abort(reason);
  }
}

/**
 * Every request is answered within `ms`: past it the answer is 503 and `request.deadline.signal`
 * aborts, so work that was handed the signal stops. This replaces Fastify's handlerTimeout, which
 * clears its timer and aborts its signal as soon as a request body has been read (Node closes a
 * request stream once it is consumed), so a POST with a body was never timed out. Fastify's own
 * `request.signal` knows nothing of this limit; the linter keeps routes from using it.
 */
export function registerRequestTimeout(app: FastifyInstance, ms: number): void {
  app.decorateRequest('deadline', null as unknown as Deadline);
  app.addHook('onRequest', (request, reply, done) => {
    const deadline = new Deadline();
    request.deadline = deadline;
    const timer = setTimeout(() => {
      // Streams hijack their reply and live past the limit.
      if (reply.sent) return;
      deadline.abort(new RequestTimeout(ms));
      if (reply.raw.headersSent) reply.raw.destroy();
      else
        void sendProblem(
          reply,
          503,
          `the request took too long to answer (REQUEST_TIMEOUT_MS is ${ms}) and was cancelled; try again`,
        );
    }, ms);
    reply.raw.once('close', () => {
      clearTimeout(timer);
      if (!reply.raw.writableFinished && !deadline.passed)
        deadline.abort(new Error('the client closed the connection'));
    });
    done();
  });
}
