import { Big } from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fifo } from './fifo.js';
import type { Movement, TaxBook } from './movements.js';
import { allYearFigures } from './year.js';

const OWNERS = ['Anna', 'Bo', 'Carl'] as const;

const step = fc.record({
  kind: fc.constantFrom('acquisition', 'income', 'sale', 'spend', 'fee', 'transfer'),
  owner: fc.nat({ max: 2 }),
  other: fc.nat({ max: 1 }),
  gap: fc.nat({ max: 200 }),
  sats: fc.integer({ min: 1, max: 50_000_000 }),
  share: fc.integer({ min: 1, max: 1000 }),
  fee: fc.nat({ max: 5_000 }),
  ore: fc.bigInt({ min: 0n, max: 10_000_000_000n }),
  unknown: fc.boolean(),
  succession: fc.boolean(),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

const dkk = (ore: bigint) => new Big(ore.toString()).div(100).toFixed(2);
const ore = (text: string) => BigInt(new Big(text).times(100).toFixed(0));

/**
 * Valid movements from random steps, with what an independent model expects: the sats each
 * owner holds, and the øre of cost that entered the pools (null once an unknown cost entered).
 */
function build(steps: Step[], unknownCosts: boolean) {
  const held = [0, 0, 0];
  let costIn: bigint | null = 0n;
  const movements: Movement[] = [];
  let day = Date.UTC(2024, 0, 1);
  steps.forEach((s, i) => {
    day += s.gap * 86_400_000;
    const base = {
      event_id: i + 1,
      occurred_at: new Date(day).toISOString().slice(0, 10),
      owner: OWNERS[s.owner]!,
    };
    const o = s.owner;
    const out = Math.max(1, Math.floor((held[o]! * s.share) / 1000));
    const fee = Math.min(s.fee, out - 1);
    const value = dkk(s.ore);
    if (s.kind === 'acquisition' || s.kind === 'income') {
      const unknown = unknownCosts && s.unknown && s.kind === 'acquisition';
      movements.push(
        s.kind === 'income'
          ? { kind: 'income', ...base, sats: s.sats, value_dkk: value }
          : { kind: 'acquisition', ...base, sats: s.sats, cost_dkk: unknown ? null : value },
      );
      costIn = unknown || costIn === null ? null : costIn + s.ore;
      held[o]! += s.sats;
      return;
    }
    if (held[o] === 0) return;
    if (s.kind === 'sale' || s.kind === 'spend')
      movements.push({
        kind: 'disposal',
        type: s.kind,
        ...base,
        sats: out - fee,
        fee_sats: fee,
        proceeds_dkk: value,
      });
    else if (s.kind === 'fee') movements.push({ kind: 'fee', ...base, fee_sats: out, value_dkk: value });
    else {
      const to = (o + 1 + s.other) % 3;
      const common = {
        kind: 'transfer' as const,
        ...base,
        to_owner: OWNERS[to]!,
        sats: out - fee,
        fee_sats: fee,
      };
      movements.push(
        s.succession
          ? { ...common, succession: true, fee_value_dkk: fee > 0 ? value : null }
          : { ...common, succession: false, value_dkk: value },
      );
      held[to]! += out - fee;
      if (!s.succession && costIn !== null) costIn += s.ore;
    }
    held[o]! -= out;
  });
  return { movements, held, costIn };
}

const steps = fc.array(step, { maxLength: 120 });

const heldBy = (book: TaxBook) =>
  OWNERS.map((o) => book.lots.filter((l) => l.owner === o).reduce((sum, l) => sum + l.sats, 0));

describe('fifo over random sequences', () => {
  it("keeps each owner's open lots equal to the sats the owner holds", () => {
    fc.assert(
      fc.property(steps, fc.boolean(), (s, unknownCosts) => {
        const { movements, held } = build(s, unknownCosts);
        expect(heldBy(fifo(movements))).toEqual(held);
      }),
    );
  });

  it('makes proceeds − gain the cost of the lots each disposal drew on, and loses no øre across all of them', () => {
    fc.assert(
      fc.property(steps, (s) => {
        const { movements, costIn } = build(s, false);
        const book = fifo(movements);
        let costOut = 0n;
        for (const d of book.disposals) {
          const drawn = d.lots.reduce((sum, l) => sum + ore(l.cost_dkk!), 0n);
          expect(ore(d.proceeds_dkk) - ore(d.gain_dkk!)).toBe(drawn);
          expect(ore(d.cost_dkk!)).toBe(drawn);
          expect(d.lots.reduce((sum, l) => sum + l.sats, 0)).toBe(d.sats);
          costOut += drawn;
        }
        const open = book.lots.reduce((sum, l) => sum + ore(l.cost_dkk!), 0n);
        expect(costOut + open).toBe(costIn);
      }),
    );
  });

  it('leaves a cost null exactly where an unknown lot was drawn, and the year incomplete', () => {
    fc.assert(
      fc.property(steps, (s) => {
        const { movements } = build(s, true);
        const book = fifo(movements);
        const unknownAcquisitions = new Set(
          movements.filter((m) => m.kind === 'acquisition' && m.cost_dkk === null).map((m) => m.event_id),
        );
        for (const d of book.disposals) {
          expect(d.cost_dkk === null).toBe(d.lots.some((l) => l.cost_dkk === null));
          for (const l of d.lots)
            if (l.cost_dkk === null) expect(unknownAcquisitions.has(l.event_id)).toBe(true);
        }
        for (const y of allYearFigures(book)) {
          const rows = book.disposals.filter(
            (d) => d.owner === y.owner && d.occurred_at.startsWith(`${y.year}-`),
          );
          expect(y.complete).toBe(rows.every((d) => d.gain_dkk !== null));
          const known = rows.filter((d) => d.gain_dkk !== null).map((d) => ore(d.gain_dkk!));
          expect(ore(y.gains_dkk)).toBe(known.filter((g) => g >= 0n).reduce((a, b) => a + b, 0n));
          expect(ore(y.losses_dkk)).toBe(-known.filter((g) => g < 0n).reduce((a, b) => a + b, 0n));
          expect(ore(y.rubrik_20_dkk)).toBe(ore(y.gains_dkk) + ore(y.income_dkk));
          expect(y.rubrik_58_dkk).toBe(y.losses_dkk);
        }
      }),
    );
  });

  it('splits one lot over any number of partial disposals into parts within an øre of their share that sum to its cost', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_100_000_000_000_000 }),
        fc.bigInt({ min: 0n, max: 100_000_000_000_000n }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 200 }),
        (sats, cost, shares) => {
          const movements: Movement[] = [
            {
              kind: 'acquisition',
              event_id: 1,
              occurred_at: '2025-01-01',
              owner: 'Anna',
              sats,
              cost_dkk: dkk(cost),
            },
          ];
          let left = sats;
          for (const [i, share] of shares.entries()) {
            const take =
              i === shares.length - 1 ? left : Math.min(left, Math.max(1, Math.floor((left * share) / 1000)));
            if (take === 0) break;
            movements.push({
              kind: 'disposal',
              type: 'sale',
              event_id: i + 2,
              occurred_at: '2025-01-02',
              owner: 'Anna',
              sats: take,
              fee_sats: 0,
              proceeds_dkk: '1.00',
            });
            left -= take;
          }
          const book = fifo(movements);
          let sum = 0n;
          for (const d of book.disposals) {
            const part = ore(d.cost_dkk!);
            const exact = cost * BigInt(d.sats); // part × sats, scaled by the lot's sats
            const off = part * BigInt(sats) - exact;
            expect(off < 0n ? -off : off).toBeLessThan(BigInt(sats));
            sum += part;
          }
          expect(sum).toBe(cost);
          expect(book.lots).toEqual([]);
        },
      ),
    );
  });
});
