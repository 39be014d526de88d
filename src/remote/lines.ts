import { Type, type Static } from 'typebox';

const Payload = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]));

/**
 * One line of a job's answer (application/x-ndjson): a result line, an error line, a progress
 * bar's start, change or end, a keep-alive, or the exit code that ends the answer.
 */
export const JobLine = Type.Object(
  {
    out: Type.Optional(Type.String({ description: 'a result line (the command prints it on stdout)' })),
    err: Type.Optional(Type.String({ description: 'an error line (stderr)' })),
    bar: Type.Optional(Type.Integer({ description: 'the progress bar this line is about' })),
    start: Type.Optional(
      Type.Object({
        format: Type.String(),
        total: Type.Number(),
        payload: Type.Optional(Payload),
        stream: Type.Optional(Type.Union([Type.Literal('stdout'), Type.Literal('stderr')])),
      }),
    ),
    value: Type.Optional(Type.Number()),
    delta: Type.Optional(Type.Number()),
    total: Type.Optional(Type.Number()),
    payload: Type.Optional(Payload),
    stop: Type.Optional(Type.Boolean()),
    ping: Type.Optional(Type.Boolean({ description: 'sent every 15 s while nothing else is, for proxies' })),
    exit: Type.Optional(Type.Integer({ description: 'the exit code: the last line; 0 is success' })),
  },
  { description: 'one JSON object per line' },
);
export type JobLine = Static<typeof JobLine>;
