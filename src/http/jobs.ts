import type { FastifyReply, FastifyRequest } from 'fastify';
import { JobLine } from '../remote/lines.js';
import type { CommandOutput } from '../shared/command-output.js';

/** OpenAPI of a job's 200 answer: its lines as they happen. */
export const JobLines = {
  description:
    'application/x-ndjson, streamed while the work runs: the lines and progress the command line shows, ' +
    'then `{"exit": N}` (0 is success). Closing the connection stops the work after the step in progress.',
  content: { 'application/x-ndjson': { schema: JobLine } },
} as unknown as typeof JobLine;

const PING_MS = 15_000;

/**
 * Runs a command's work for a forwarding command line and streams what it says as NDJSON. The
 * reply is taken over (hijacked), so the request timeout does not cut a month's sync short;
 * `signal` given to the work aborts when the client goes away or the service stops.
 */
export function streamJob(
  request: FastifyRequest,
  reply: FastifyReply,
  shutdown: AbortSignal,
  run: (output: CommandOutput, signal: AbortSignal) => Promise<number>,
): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  // the client learns at once that the work began, not at its first line
  res.flushHeaders();
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the connection'));
  });
  const send = (line: JobLine) => {
    if (!res.destroyed) res.write(`${JSON.stringify(line)}\n`);
  };
  const ping = setInterval(() => send({ ping: true }), PING_MS);
  let bars = 0;
  const output: CommandOutput = {
    out: (line) => send({ out: line }),
    err: (line) => send({ err: line }),
    progress: (spec) => {
      const bar = ++bars;
      send({ bar, start: spec });
      return {
        update: (value, payload) => send({ bar, value, ...(payload ? { payload } : {}) }),
        increment: (delta, payload) => send({ bar, delta, ...(payload ? { payload } : {}) }),
        setTotal: (total) => send({ bar, total }),
        stop: () => send({ bar, stop: true }),
      };
    },
  };
  void run(output, AbortSignal.any([gone.signal, shutdown]))
    .catch((e: unknown) => {
      request.log.error({ err: e }, 'job failed');
      send({ err: `${request.url.split('?')[0]}: ${e instanceof Error ? e.message : String(e)}` });
      return 1;
    })
    .then((exit) => {
      clearInterval(ping);
      send({ exit });
      res.end();
    });
}
