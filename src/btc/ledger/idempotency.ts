import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema.js';
import type { RefusalKind } from '../../shared/refusal.js';
import type { EventJson } from './schemas.js';

/** What a key's request came to, as the ledger decided it: the event it created, or its refusal. */
export type KeyOutcome = { event: EventJson } | { refusal: { kind: RefusalKind; detail: string } };

export interface StoredKey {
  request_hash: string;
  outcome: KeyOutcome;
}

/** The kinds of the statuses keys stored an answer with before they stored the outcome (what the ledger refused with). */
const KIND_OF_STATUS: Record<number, RefusalKind> = {
  400: 'invalid',
  404: 'not-found',
  409: 'conflict',
  422: 'unprocessable',
};

/**
 * A key stored before outcomes were, as its outcome: a 201's body is the event; a refusal's
 * problem body has the detail, and its status gives the kind the edge words it with again.
 */
function outcomeOfAnswer(status: number, body: unknown): KeyOutcome {
  if (status === 201) return { event: body as EventJson };
  const kind = KIND_OF_STATUS[status];
  if (!kind)
    throw new Error(`an idempotency key stored with status ${status}, which the ledger never answered`);
  return { refusal: { kind, detail: (body as { detail: string }).detail } };
}

/** A body's fingerprint that ignores key order and whitespace. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

export async function findOutcome(db: Db, key: string): Promise<StoredKey | undefined> {
  const row = await db
    .selectFrom('btc.idempotency_keys')
    .select(['request_hash', 'outcome', 'status', 'body'])
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  const outcome = (row.outcome as KeyOutcome | null) ?? outcomeOfAnswer(row.status!, row.body);
  return { request_hash: row.request_hash, outcome };
}

/**
 * Stores the outcome unless the key is taken; a concurrent request with the same key waits on
 * the unique index until the first commits, then sees it taken. Returns whether it stored.
 */
export async function storeOutcome(db: Db, key: string, stored: StoredKey): Promise<boolean> {
  const r = await db
    .insertInto('btc.idempotency_keys')
    .values({ key, request_hash: stored.request_hash, outcome: JSON.stringify(stored.outcome) })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Deletes at most `limit` keys stored before `before`, for the daily retention: a retry after
 * that is a new request, as with Stripe's 24 hours.
 */
export async function pruneIdempotencyKeys(db: Db, before: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('btc.idempotency_keys')
    .where(
      'key',
      'in',
      db.selectFrom('btc.idempotency_keys').select('key').where('created_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
