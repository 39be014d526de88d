import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from '../shared/refusal.js';
import { decodeUtf8, utf8Fault } from '../shared/utf8.js';
import { sendProblem } from './problem.js';

/* Bytes that are not UTF-8 are a 400 wherever a request carries text (src/shared/utf8.ts). */

/** A body's bytes as text, or a 400 naming where they stop being UTF-8. */
export function bodyText(bytes: Buffer, opts: { lines?: boolean } = {}): string {
  const refusal = utf8Fault(bytes, opts);
  if (refusal) throw invalid(`body: ${refusal}`);
  return decodeUtf8(bytes);
}

/** A query string's percent-escapes decoded to the bytes they stand for (other characters as themselves). */
function percentDecoded(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25 && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(text[i]!, 'latin1'));
  }
  return Uint8Array.from(out);
}

/** Why a query string is refused: a parameter whose percent-escapes are not UTF-8, named; null when none. */
export function queryRefusal(query: string): string | null {
  const decoded = 'once percent-decoded';
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = percentDecoded((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const nameRefusal = utf8Fault(name, { decoded });
    if (nameRefusal) return `querystring: a parameter's name ${nameRefusal}`;
    const valueRefusal = eq < 0 ? null : utf8Fault(percentDecoded(pair.slice(eq + 1)), { decoded });
    if (valueRefusal)
      return `querystring.${Buffer.from(name).toString('utf8').slice(0, 40)}: ${valueRefusal}`;
  }
  return null;
}

/** The request headers kept as text (an Idempotency-Key is stored with the answer it gave). */
const TEXT_HEADERS = ['idempotency-key'] as const;

function requestRefusal(request: FastifyRequest): string | null {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  if (q >= 0) {
    const refusal = queryRefusal(url.slice(q + 1));
    if (refusal) return refusal;
  }
  for (const name of TEXT_HEADERS) {
    const value = request.headers[name];
    // Node reads a header's bytes one character each (latin1): those are the bytes sent
    const refusal = typeof value === 'string' ? utf8Fault(Buffer.from(value, 'latin1')) : null;
    if (refusal) return `headers.${name}: ${refusal}`;
  }
  return null;
}

/**
 * Every request's query string and text headers are checked, and the server's JSON and plain
 * text bodies are read as UTF-8 that fails on the first byte that is not (each answered 400 with
 * problem+json naming it). A scope with parsers of its own reads its body through `bodyText`.
 */
export function requireUtf8(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = requestRefusal(request);
    if (refusal) return sendProblem(reply, 400, refusal);
  });
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = bodyText(body as Buffer);
    } catch (e) {
      return done(e as Error, undefined);
    }
    void json(request, text, done);
  });
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, bodyText(body as Buffer, { lines: true }));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}
