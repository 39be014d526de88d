import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { moves, type EventData } from './events.js';
import { findOutcome } from './idempotency.js';
import { insertEvents } from './repository.js';

/**
 * The ledger's one rule of moves, said twice (the view btc.event_moves for SQL, `moves()` for
 * TypeScript), held equal over random events of every type written straight to the table.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.close());

const wallet = fc.integer({ min: 1, max: 7 });
const date = fc.integer({ min: 1, max: 28 }).map((d) => `2026-02-${String(d).padStart(2, '0')}`);
const sats = fc.integer({ min: 1, max: 2_000_000_000_000_000 });
const fee = fc.integer({ min: 0, max: 100_000_000_000_000 });
const fiat = { amount: fc.constant('12.34'), currency: fc.constantFrom('EUR' as const, 'DKK' as const) };
/** A spend's or a receive's amount and currency come together or not at all. */
const maybeFiat = fc.option(fc.record(fiat), { nil: undefined });
const event: fc.Arbitrary<EventData> = fc.oneof(
  fc.record({ type: fc.constant('bank_to_exchange' as const), occurred_at: date, wallet, ...fiat }),
  fc.record({
    type: fc.constant('exchange_to_wallet' as const),
    occurred_at: date,
    from_wallet: wallet,
    to_wallet: wallet,
    sats,
    fee_sats: fee,
    ...fiat,
  }),
  fc.record({
    type: fc.constant('wallet_to_wallet' as const),
    occurred_at: date,
    from_wallet: wallet,
    to_wallet: wallet,
    sats,
    fee_sats: fee,
  }),
  fc.record({
    type: fc.constantFrom('exchange_buy' as const, 'exchange_sell' as const),
    occurred_at: date,
    wallet,
    sats,
    ...fiat,
  }),
  fc
    .tuple(
      fc.record({
        type: fc.constant('spend' as const),
        occurred_at: date,
        from_wallet: wallet,
        sats,
        fee_sats: fee,
      }),
      maybeFiat,
    )
    .map(([e, f]): EventData => ({ ...e, ...f })),
  fc
    .tuple(
      fc.record({
        type: fc.constant('receive' as const),
        occurred_at: date,
        to_wallet: wallet,
        sats,
        kind: fc.constantFrom('income' as const, 'gift' as const, 'unknown' as const),
      }),
      maybeFiat,
    )
    .map(([e, f]): EventData => ({ ...e, ...f })),
);

describe('the rule of moves', () => {
  it('moves() answers for every event exactly the rows the view btc.event_moves holds', async () => {
    const db = t.database.db;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 30 }), async (events) => {
        await sql`truncate btc.events cascade`.execute(db);
        const rows = await insertEvents(db, events);
        const expected = rows.flatMap((row, i) =>
          moves(events[i]!).map((m) => ({
            event_id: row.id,
            occurred_at: events[i]!.occurred_at,
            wallet_id: m.wallet,
            sats_delta: m.sats,
          })),
        );
        const view = await sql<{
          event_id: string;
          occurred_at: string;
          wallet_id: number;
          sats_delta: string;
        }>`
          select event_id, to_char(occurred_at, 'YYYY-MM-DD') as occurred_at, wallet_id, sats_delta
          from btc.event_moves order by event_id, sats_delta, wallet_id`.execute(db);
        const order = (a: (typeof expected)[number], b: (typeof expected)[number]) =>
          a.event_id - b.event_id || a.sats_delta - b.sats_delta || a.wallet_id - b.wallet_id;
        expect(
          view.rows.map((r) => ({ ...r, event_id: Number(r.event_id), sats_delta: Number(r.sats_delta) })),
        ).toEqual(expected.sort(order));
      }),
      { numRuns: 60 },
    );
  });
});

describe('an Idempotency-Key stored before outcomes were', () => {
  it('reads as the outcome its status and body stood for', async () => {
    const db = t.database.db;
    const event = { id: 9, type: 'wallet_to_wallet', occurred_at: '2026-02-03', from_wallet: 4 };
    const detail =
      'wallet 4 (Trezor) would be 5 sats below zero on 2026-02-03: its running balance may not go negative on any date';
    await db
      .insertInto('btc.idempotency_keys')
      .values([
        { key: 'old-201', request_hash: 'h', status: 201, body: JSON.stringify(event) },
        {
          key: 'old-409',
          request_hash: 'h',
          status: 409,
          body: JSON.stringify({ type: 'about:blank', title: 'Conflict', status: 409, detail }),
        },
      ])
      .execute();
    expect(await findOutcome(db, 'old-201')).toEqual({ request_hash: 'h', outcome: { event } });
    expect(await findOutcome(db, 'old-409')).toEqual({
      request_hash: 'h',
      outcome: { refusal: { kind: 'conflict', detail } },
    });
  });
});
