import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema.js';

export interface StoredAnswer {
  request_hash: string;
  status: number;
  body: unknown;
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

export function findAnswer(db: Db, key: string): Promise<StoredAnswer | undefined> {
  return db
    .selectFrom('btc.idempotency_keys')
    .select(['request_hash', 'status', 'body'])
    .where('key', '=', key)
    .executeTakeFirst();
}

/**
 * Stores the answer unless the key is taken; a concurrent request with the same key waits on
 * the unique index until the first commits, then sees it taken. Returns whether it stored.
 */
export async function storeAnswer(db: Db, key: string, answer: StoredAnswer): Promise<boolean> {
  const r = await db
    .insertInto('btc.idempotency_keys')
    .values({
      key,
      request_hash: answer.request_hash,
      status: answer.status,
      body: JSON.stringify(answer.body),
    })
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
