/**
 * What the domain refuses, in its own words: the one family of errors that services, schedulers
 * and providers throw about an answer. None of them knows HTTP; the edge (problemOf in
 * src/http/problem.ts) chooses the status of each kind: invalid 400, not-found 404, conflict 409,
 * unprocessable 422, too-many 429, unavailable 503, provider-unavailable 503, provider-failed 502.
 *
 * - `unavailable`: this service cannot answer now (nothing has arrived yet, a feed is off, it is full).
 * - `provider-unavailable`: a provider the answer needs gave no answer, asked us to wait (429, 503)
 *   or its call budget is spent.
 * - `provider-failed`: a provider the answer needs answered with an error, or with something
 *   malformed or implausible.
 */
export type RefusalKind =
  | 'invalid'
  | 'not-found'
  | 'conflict'
  | 'unprocessable'
  | 'too-many'
  | 'unavailable'
  | 'provider-unavailable'
  | 'provider-failed';

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly detail: string,
    /** When asking again may succeed, in seconds (too-many and the unavailable kinds). */
    readonly retryAfterS?: number,
    /** Members the problem+json body carries beside type, title, status and detail (RFC 9457 extensions). */
    readonly extensions?: Readonly<Record<string, unknown>>,
  ) {
    super(detail);
    this.name = 'Refusal';
  }
}

export const invalid = (detail: string) => new Refusal('invalid', detail);
export const notFound = (detail: string) => new Refusal('not-found', detail);
export const conflict = (detail: string) => new Refusal('conflict', detail);
export const unprocessable = (detail: string) => new Refusal('unprocessable', detail);
export const unavailable = (detail: string, retryAfterS?: number) =>
  new Refusal('unavailable', detail, retryAfterS);
