import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from '../../../test/fakes/all.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { btcService } from '../index.js';

/**
 * Request deadlines for the ledger, over real sockets: a POST /api/events that runs past
 * REQUEST_TIMEOUT_MS while the rates provider hangs is answered 503, its provider call is
 * cancelled, and it commits nothing; a retry with the same Idempotency-Key then records the event
 * once, and every later retry answers what was committed.
 */
let fakes: AllFakes;
let t: TestApp;
let base: string;
beforeAll(async () => {
  const now = new Date('2026-07-03T10:00:00Z');
  fakes = await startAllFakes({ now });
  t = await startTestApp({
    now: now.toISOString(),
    env: { ...fakes.env, REQUEST_TIMEOUT_MS: '1000', PROVIDER_TIMEOUT_MS: '60000' },
    services: { btc: btcService },
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function until(check: () => boolean | Promise<boolean>) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

const count = async (table: 'btc.events' | 'btc.idempotency_keys') =>
  Number(
    (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(t.db.database.db))
      .rows[0]!.n,
  );

describe('timeouts that hold: a ledger write that timed out', () => {
  it('did not commit, and a retry with the same Idempotency-Key records it once and then answers it', async () => {
    // Made past the API: on a busy machine its POST may itself outlast the 1 s deadline.
    const wallet = await sql<{ id: number }>`insert into btc.wallets (name, wallet_type)
      values ('timeout exchange', 'exchange') returning id`.execute(t.db.database.db);
    const body = {
      type: 'bank_to_exchange',
      occurred_at: '2026-06-12',
      wallet: wallet.rows[0]!.id,
      amount: '250.00',
      currency: 'EUR',
    };
    const key = { 'idempotency-key': 'timed-out-write-1' };
    const frankfurter = fakes.frankfurter;
    // Slower than the request may take; the fetch, shared by every caller of the date, finishes later.
    frankfurter.failAlways({ kind: 'delay', ms: 2500 });
    const asked = frankfurter.requests.length;

    const late = await call('POST', '/api/events', body, key);
    expect(late.status).toBe(503);
    expect(String(late.json.detail)).toMatch(/REQUEST_TIMEOUT_MS/);
    // The write stopped waiting when its signal aborted, before the 503 went out, and wrote nothing.
    expect(frankfurter.requests.length).toBeGreaterThan(asked);
    expect([await count('btc.events'), await count('btc.idempotency_keys')]).toEqual([0, 0]);
    // Once the provider's late answer is stored, nothing the timed-out request began commits either.
    await until(
      async () =>
        (await sql`select 1 from btc.currency_rates where date = '2026-06-12'`.execute(t.db.database.db)).rows
          .length > 0,
    );
    frankfurter.heal();
    expect([await count('btc.events'), await count('btc.idempotency_keys')]).toEqual([0, 0]);

    const retry = await call('POST', '/api/events', body, key);
    expect(retry.status).toBe(201);
    expect(retry.json).toMatchObject({ ...body, id: expect.any(Number) as number });
    const again = await call('POST', '/api/events', body, key);
    expect([again.status, again.json]).toEqual([201, retry.json]);
    expect(await count('btc.events')).toBe(1);
  });
});
