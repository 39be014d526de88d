/**
 * What a service refuses, in the domain's words. Services throw these and never know HTTP; the
 * edge (src/http/problem.ts) chooses the status: invalid 400, not-found 404, conflict 409,
 * unprocessable 422, too-many 429, unavailable 503.
 */
export type RefusalKind = 'invalid' | 'not-found' | 'conflict' | 'unprocessable' | 'too-many' | 'unavailable';

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly detail: string,
    /** When asking again may succeed, in seconds (too-many, unavailable). */
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
export const unavailable = (detail: string, retryAfterS?: number) =>
  new Refusal('unavailable', detail, retryAfterS);
