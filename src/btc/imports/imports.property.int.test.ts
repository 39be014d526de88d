import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KRAKEN_HEADER, krakenLines, type KrakenStep } from '../../../test/fakes/kraken-ledger.js';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerAndImports } from '../../../test/support/services.js';

const TOKEN = 'imports-property-token-0123456789';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKEN: TOKEN }, services: ledgerAndImports(fakeRates()) });
});
afterAll(() => t.close());

const auth = { authorization: `Bearer ${TOKEN}` };

/** A random history on one exchange: withdrawals never take more than the buys before them left. */
const history = fc
  .array(
    fc.record({
      gapMinutes: fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 60, max: 20_000 })),
      kind: fc.constantFrom('deposit', 'buy', 'buy', 'withdrawal', 'withdrawal', 'staking'),
      currency: fc.constantFrom('ZEUR', 'ZUSD', 'ZDKK'),
      cents: fc.integer({ min: 1_000, max: 500_000 }),
      feeCents: fc.integer({ min: 0, max: 2_000 }),
      sats: fc.integer({ min: 1_000, max: 5_000_000 }),
      share: fc.double({ min: 0.05, max: 1, noNaN: true }),
      feeSats: fc.integer({ min: 0, max: 5_000 }),
    }),
    { minLength: 2, maxLength: 24 },
  )
  .map((raw) => {
    const steps: KrakenStep[] = [];
    // Around UTC midnight now and then, where the Danish day is already the next one.
    let at = Date.parse('2024-03-30T21:30:00Z');
    let held = 0;
    for (const r of raw) {
      at += r.gapMinutes * 60_000 + 1000;
      const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}00`;
      if (r.kind === 'deposit')
        steps.push({
          kind: 'deposit',
          at,
          currency: r.currency === 'ZDKK' ? 'ZEUR' : r.currency,
          amount: money(r.cents),
        });
      if (r.kind === 'buy') {
        steps.push({
          kind: 'buy',
          at,
          currency: r.currency as 'ZEUR',
          spend: money(r.cents),
          fee: money(r.feeCents),
          sats: r.sats,
        });
        held += r.sats;
      }
      if (r.kind === 'withdrawal' && held >= 2_000) {
        const fee = Math.min(r.feeSats, Math.floor(held / 2));
        const sats = Math.max(1_000, Math.floor((held - fee) * r.share));
        if (sats + fee > held) continue;
        steps.push({ kind: 'withdrawal', at, sats, fee_sats: fee });
        held -= sats + fee;
      }
      if (r.kind === 'staking') steps.push({ kind: 'staking', at, sats: 10 });
    }
    return steps;
  });

/** Cut points between steps of different times, so that the lines of one trade stay together. */
function pieces(
  steps: readonly KrakenStep[],
  cuts: number[],
  overlap: number,
): { first: number; steps: KrakenStep[] }[] {
  const bounds = [...new Set(cuts.map((c) => c % (steps.length + 1)))].sort((a, b) => a - b);
  const out: { first: number; steps: KrakenStep[] }[] = [];
  let start = 0;
  for (const end of [...bounds, steps.length]) {
    if (end <= start) continue;
    const first = Math.max(0, start - overlap);
    out.push({ first, steps: steps.slice(first, end) });
    start = end;
  }
  return out;
}

let run = 0;
async function freshWallets(): Promise<{ exchange: number; wallet: number }> {
  run++;
  const make = async (name: string, wallet_type: string) =>
    (await t.call('POST', '/api/wallets', { name: `${name} ${run}`, wallet_type }, auth)).json<{
      id: number;
    }>().id;
  return { exchange: await make('exchange', 'exchange'), wallet: await make('cold', 'wallet') };
}

async function importFile(
  steps: readonly KrakenStep[],
  prefix: string,
  w: { exchange: number; wallet: number },
  first = 0,
) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/imports?source=kraken&exchange=${w.exchange}&to_wallet=${w.wallet}`,
    headers: { ...auth, 'content-type': 'text/csv' },
    payload: [KRAKEN_HEADER, ...krakenLines(steps, prefix, first)].join('\n'),
  });
  expect([200, 201], res.body).toContain(res.statusCode);
}

/** The ledger of a pair of wallets, with the prefix taken off the references. */
async function ledgerOf(w: { exchange: number; wallet: number }, prefix: string) {
  const events = await sql<Record<string, unknown>>`
    select e.type, to_char(e.occurred_at, 'YYYY-MM-DD') as day, e.wallet = ${w.exchange} as on_exchange,
      e.sats, e.fee_sats, e.amount::text as amount, e.currency, replace(i.reference, ${prefix}, '') as ref,
      b.amount_eur::text as buy_eur, d.amount_eur::text as deposit_eur
    from btc.events e join btc.imported_events i on i.event_id = e.id
      left join btc.buys b on b.event_id = e.id left join btc.deposits d on d.event_id = e.id
    where e.wallet = ${w.exchange} or e.from_wallet = ${w.exchange}
    order by e.occurred_at, ref`.execute(t.ctx.database.db);
  const lots = await sql<Record<string, unknown>>`
    select replace(l.reference, ${prefix}, '') as ref, l.sats, l.amount::text as amount,
      l.sats - coalesce((select sum(a.sats) from btc.lot_allocations a where a.lot_id = l.id), 0)::int8 as left_sats
    from btc.purchase_lots l where l.exchange = ${w.exchange} order by ref`.execute(t.ctx.database.db);
  const balance = (await t.call('GET', `/api/wallets/${w.wallet}`, undefined, auth)).json<{
    balance: number;
  }>().balance;
  return { events: events.rows, lots: lots.rows, balance };
}

describe('importing a file whole or in overlapping pieces', () => {
  it(
    'gives the same ledger: events, their cost, read rows, lots left and balances',
    { timeout: 300_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          history,
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 0, max: 3 }),
          async (steps, cuts, overlap) => {
            const whole = await freshWallets();
            const split = await freshWallets();
            await importFile(steps, `${run}W-`, whole);
            for (const piece of pieces(steps, cuts, overlap))
              await importFile(piece.steps, `${run}S-`, split, piece.first);
            const a = await ledgerOf(whole, `${run}W-`);
            const b = await ledgerOf(split, `${run}S-`);
            expect(b).toEqual(a);
            expect(a.events).toHaveLength(
              steps.filter((s) => s.kind === 'deposit' || s.kind === 'withdrawal').length,
            );
          },
        ),
        { numRuns: 15, seed: 20261203 },
      );
    },
  );
});
