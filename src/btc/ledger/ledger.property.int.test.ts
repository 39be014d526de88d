import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';
import { rebuildWalletDays } from './history.js';
import { balancesFromEvents } from './repository.js';

/**
 * Random sequences of creates, replaces, deletes and idempotent replays through the HTTP API,
 * checked against a model that knows only the table of effects in docs/ledger.md.
 */
let t: TestApp;
let exchanges: number[];
let wallets: number[];
beforeAll(async () => {
  t = await startTestApp({ services: ledgerOnly(fakeRates()) });
  const all = (await t.call('GET', '/api/wallets')).json<{ id: number; wallet_type: string }[]>();
  exchanges = all.filter((w) => w.wallet_type === 'exchange').map((w) => w.id);
  wallets = all.map((w) => w.id);
});
afterAll(() => t.close());

type Body = Record<string, unknown>;
type Cmd =
  | { op: 'create'; body: Body; key: string | null }
  | { op: 'replace'; pick: number; body: Body }
  | { op: 'delete'; pick: number }
  | { op: 'replay'; pick: number };

const date = fc.integer({ min: 1, max: 9 }).map((d) => `2026-01-0${d}`);
const pick = fc.nat({ max: 1000 });
// Indices into the seeded wallets, resolved to ids once they are known.
const eventBody = fc.oneof(
  fc.record({
    type: fc.constant('bank_to_exchange'),
    occurred_at: date,
    wallet: fc.nat({ max: 2 }).map((i) => ({ exchange: i })),
    amount: fc.integer({ min: 1, max: 1_000_000 }).map((c) => (c / 100).toFixed(2)),
    currency: fc.constantFrom('EUR', 'DKK', 'USD'),
  }),
  fc.record({
    type: fc.constant('exchange_to_wallet'),
    occurred_at: date,
    from_wallet: fc.nat({ max: 2 }).map((i) => ({ exchange: i })),
    to_wallet: fc.nat({ max: 6 }).map((i) => ({ any: i })),
    sats: fc.integer({ min: 1, max: 100_000 }),
    fee_sats: fc.integer({ min: 0, max: 1000 }),
    amount: fc.integer({ min: 1, max: 100_000 }).map((c) => (c / 100).toFixed(2)),
    currency: fc.constantFrom('EUR', 'DKK', 'USD'),
  }),
  fc.record({
    type: fc.constant('wallet_to_wallet'),
    occurred_at: date,
    from_wallet: fc.nat({ max: 6 }).map((i) => ({ any: i })),
    to_wallet: fc.nat({ max: 6 }).map((i) => ({ any: i })),
    sats: fc.integer({ min: 1, max: 60_000 }),
    fee_sats: fc.integer({ min: 0, max: 1000 }),
  }),
);
const command: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('create' as const), body: eventBody, key: fc.option(fc.uuid()) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('replace' as const), pick, body: eventBody }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replay' as const), pick }) },
);

function resolve(body: Body): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(body)) {
    if (v && typeof v === 'object' && 'exchange' in v) out[k] = exchanges[v.exchange as number];
    else if (v && typeof v === 'object' && 'any' in v) out[k] = wallets[v.any as number];
    else out[k] = v;
  }
  return out;
}

/** The table of effects in docs/ledger.md, written out again independently of events.ts. */
function modelBalances(events: Iterable<Body>): Map<number, number> {
  const b = new Map<number, number>(wallets.map((w) => [w, 0]));
  const add = (w: unknown, d: number) => b.set(w as number, (b.get(w as number) ?? 0) + d);
  for (const e of events) {
    if (e.type === 'exchange_to_wallet') add(e.to_wallet, e.sats as number);
    if (e.type === 'wallet_to_wallet') {
      add(e.from_wallet, -((e.sats as number) + (e.fee_sats as number)));
      add(e.to_wallet, e.sats as number);
    }
  }
  return b;
}

/** Whether some wallet's running balance, by occurred_at and then id, is ever below zero. */
function everNegative(events: Map<number, Body>): boolean {
  const ordered = [...events].sort(([i, a], [j, b]) =>
    a.occurred_at === b.occurred_at ? i - j : (a.occurred_at as string) < (b.occurred_at as string) ? -1 : 1,
  );
  const running = new Map<number, number>();
  for (const [, e] of ordered)
    for (const [w, d] of modelBalances([e])) {
      running.set(w, (running.get(w) ?? 0) + d);
      if (running.get(w)! < 0) return true;
    }
  return false;
}

/** A new event's id: larger than every id given out so far. */
const NEXT_ID = Number.MAX_SAFE_INTEGER;

const expectedStatus = (events: Map<number, Body>, okStatus: number, body?: Body) => {
  if (body?.type === 'wallet_to_wallet' && body.from_wallet === body.to_wallet) return 422;
  return everNegative(events) ? 409 : okStatus;
};

async function readTables() {
  const db = t.db.database.db;
  const deposits = await sql<Record<string, unknown>>`select * from btc.deposits order by id`.execute(db);
  const buys = await sql<Record<string, unknown>>`select * from btc.buys order by id`.execute(db);
  return { deposits: deposits.rows, buys: buys.rows };
}

describe('the ledger under random sequences of changes', () => {
  it('history never goes negative: keeps every running balance ≥ 0 on every date, and balances, read tables and idempotent answers true to the events', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (cmds) => {
        await sql`truncate btc.events, btc.wallet_days, btc.deposits, btc.buys, btc.idempotency_keys`.execute(
          t.db.database.db,
        );
        await sql`update btc.wallets set balance = 0`.execute(t.db.database.db);
        const events = new Map<number, Body>();
        const answered: { key: string; body: Body; status: number; answer: unknown }[] = [];
        for (const cmd of cmds) {
          const ids = [...events.keys()];
          if (cmd.op === 'create') {
            const body = resolve(cmd.body);
            const res = await t.call(
              'POST',
              '/api/events',
              body,
              cmd.key ? { 'idempotency-key': cmd.key } : {},
            );
            const tentative = new Map(events).set(NEXT_ID, body);
            expect(res.statusCode).toBe(expectedStatus(tentative, 201, body));
            if (res.statusCode === 201) events.set(res.json<{ id: number }>().id, body);
            if (cmd.key) answered.push({ key: cmd.key, body, status: res.statusCode, answer: res.json() });
          } else if (cmd.op === 'replace' && ids.length > 0) {
            const id = ids[cmd.pick % ids.length]!;
            const body = resolve(cmd.body);
            const res = await t.call('PUT', `/api/events/${id}`, body);
            expect(res.statusCode).toBe(expectedStatus(new Map(events).set(id, body), 200, body));
            if (res.statusCode === 200) events.set(id, body);
          } else if (cmd.op === 'delete' && ids.length > 0) {
            const id = ids[cmd.pick % ids.length]!;
            const without = new Map(events);
            without.delete(id);
            const res = await t.call('DELETE', `/api/events/${id}`);
            expect(res.statusCode).toBe(expectedStatus(without, 204));
            if (res.statusCode === 204) events.delete(id);
          } else if (cmd.op === 'replay' && answered.length > 0) {
            const first = answered[cmd.pick % answered.length]!;
            const before = await readTables();
            const res = await t.call('POST', '/api/events', first.body, { 'idempotency-key': first.key });
            expect([res.statusCode, res.json()]).toEqual([first.status, first.answer]);
            expect(await readTables()).toEqual(before);
          }
        }
        // No wallet's running balance is negative on any date, read from the stored events.
        const negative = await sql<{ wallet: number }>`
          select wallet from (
            select wallet, sum(delta) over (partition by wallet order by occurred_at, id) as running from (
              select to_wallet as wallet, occurred_at, id, sats as delta from btc.events where type <> 'bank_to_exchange'
              union all
              select from_wallet, occurred_at, id, -(sats + fee_sats) from btc.events where type = 'wallet_to_wallet'
            ) m
          ) r where running < 0`.execute(t.db.database.db);
        expect(negative.rows).toEqual([]);
        // The wallet-days the writes kept (appended or recomputed) are what the events give.
        const walletDays = () =>
          sql`select wallet, to_char(day, 'YYYY-MM-DD') as day, delta, low, high from btc.wallet_days
            where not (delta = 0 and low = 0 and high = 0) order by wallet, day`
            .execute(t.db.database.db)
            .then((r) => r.rows);
        const keptDays = await walletDays();
        await rebuildWalletDays(t.db.database.db);
        expect(await walletDays()).toEqual(keptDays);
        // Each balance equals the model's and the sum over the events in SQL.
        const api = (await t.call('GET', '/api/wallets')).json<{ id: number; balance: number }[]>();
        const model = modelBalances(events.values());
        expect(api.map((w) => [w.id, w.balance])).toEqual(wallets.map((w) => [w, model.get(w)]));
        expect(await balancesFromEvents(t.db.database.db)).toEqual(
          api.map(({ id, balance }) => ({ id, balance })),
        );
        // The sum of all balances is the sats bought minus the transfer fees.
        const bought = [...events.values()].filter((e) => e.type === 'exchange_to_wallet');
        const fees = [...events.values()].filter((e) => e.type === 'wallet_to_wallet');
        const sum = (xs: Body[], k: string) => xs.reduce((s, e) => s + (e[k] as number), 0);
        expect(api.reduce((s, w) => s + w.balance, 0)).toBe(sum(bought, 'sats') - sum(fees, 'fee_sats'));
        // One read row per event of its type, and a rebuild gives exactly what the writes kept.
        const kept = await readTables();
        expect(kept.deposits.map((d) => Number(d.event_id))).toEqual(
          [...events]
            .filter(([, e]) => e.type === 'bank_to_exchange')
            .map(([id]) => id)
            .sort((a, b) => a - b),
        );
        expect((await t.call('POST', '/api/deposits/rebuild')).json()).toEqual({
          rebuilt: kept.deposits.length,
        });
        expect((await t.call('POST', '/api/buys/rebuild')).json()).toEqual({ rebuilt: kept.buys.length });
        expect(await readTables()).toEqual(kept);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
