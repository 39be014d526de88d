import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem.js';

/** The reason of a request's signal when the request ran out of time. */
export class RequestTimeout extends Error {
  override readonly name = 'RequestTimeout';
  constructor(readonly ms: number) {
    super(`the request took longer than ${ms} ms`);
  }
}

/**
 * Every request is answered within `ms`: past it the answer is 503 and `request.signal` aborts,
 * so work that was handed the signal stops. This replaces Fastify's handlerTimeout, which
 * clears its timer and aborts its signal as soon as a request body has been read (Node closes a
 * request stream once it is consumed), so a POST with a body was never timed out.
 * The signal also aborts when the client goes away before its answer was sent.
 */
export function registerRequestTimeout(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const controller = new AbortController();
    // An own property in place of Fastify's getter, so that request.signal is this deadline.
    Object.defineProperty(request, 'signal', { value: controller.signal });
    const timer = setTimeout(() => {
      // Streams hijack their reply and live past the limit.
      if (reply.sent) return;
      controller.abort(new RequestTimeout(ms));
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
      if (!reply.raw.writableFinished && !controller.signal.aborted)
        controller.abort(new Error('the client closed the connection'));
    });
    done();
  });
}
