import type { Currency, EventData } from '../ledger/events.js';
import { add, cents, fractionOf, over, times, ZERO, type Fraction } from './decimal.js';
import type { Movement } from './movements.js';
import type { LineProblem } from './records.js';

/** A purchase lot as stored: what it held, and what the withdrawals imported so far left of it. */
export interface StoredLot {
  id: number;
  reference: string;
  at: number;
  day: string;
  sats: number;
  remaining: number;
  amount: string;
  currency: Currency;
}

/** The rates the ledger stored for a day, as exact decimal text. */
export interface DayRates {
  usd_eur: string;
  eur_dkk: string;
}

/** A lot this import would record. */
export interface PlannedLot {
  line: number;
  reference: string;
  at: number;
  day: string;
  sats: number;
  amount: string;
  currency: Currency;
}

/** Where a withdrawal's sats came from: a stored lot (by id) or one of this import's (by index). */
export type LotRef = { stored: number } | { planned: number };

export interface PlannedEvent {
  line: number;
  reference: string;
  event: EventData;
  takes: { lot: LotRef; sats: number }[];
}

export interface Plan {
  events: PlannedEvent[];
  lots: PlannedLot[];
  duplicates: number;
  problems: LineProblem[];
}

export interface PlanInput {
  /** The movements of the file, in time order. */
  movements: readonly Movement[];
  exchange?: number;
  to_wallet?: number;
  /** References of this source already stored, for events and for lots. */
  knownEvents: ReadonlySet<string>;
  knownLots: ReadonlySet<string>;
  /** The exchange's stored lots that still hold sats, oldest first. */
  openLots: readonly StoredLot[];
  rates: ReadonlyMap<string, DayRates>;
}

interface Queued {
  ref: LotRef;
  at: number;
  day: string;
  sats: number;
  left: number;
  amount: string;
  currency: Currency;
}

/**
 * What an import would write, given what is stored: the new events and lots, each withdrawal's
 * cost as the FIFO cost in EUR of the sats that left (amount and fee) from the lots bought up to
 * its time, exact, rounded to the cent once; what is already stored counts as a duplicate.
 * Pure: the service loads the stored state and applies the plan.
 */
export function plan(input: PlanInput): Plan {
  const out: Plan = { events: [], lots: [], duplicates: 0, problems: [] };
  const fresh = input.movements.filter((m) => {
    const known = m.kind === 'lot' ? input.knownLots : input.knownEvents;
    if (!known.has(m.reference)) return true;
    out.duplicates++;
    return false;
  });
  const queue: Queued[] = input.openLots.map((l) => ({
    ref: { stored: l.id },
    at: l.at,
    day: l.day,
    sats: l.sats,
    left: l.remaining,
    amount: l.amount,
    currency: l.currency,
  }));
  for (const m of fresh) {
    if (m.kind !== 'lot') continue;
    queue.push({ ref: { planned: out.lots.length }, ...m, left: m.sats });
    out.lots.push({
      line: m.line,
      reference: m.reference,
      at: m.at,
      day: m.day,
      sats: m.sats,
      amount: m.amount,
      currency: m.currency,
    });
  }
  // Stable: among lots of the same instant, stored ones (already in order) before new ones.
  queue.sort((a, b) => a.at - b.at);
  let head = 0;
  for (const m of fresh) {
    if (m.kind === 'event')
      out.events.push({ line: m.line, reference: m.reference, event: m.event, takes: [] });
    if (m.kind !== 'withdrawal') continue;
    const need = m.sats + m.fee_sats;
    const takes: PlannedEvent['takes'] = [];
    let cost: Fraction = ZERO;
    let got = 0;
    while (got < need && head < queue.length && queue[head]!.at <= m.at) {
      const lot = queue[head]!;
      const sats = Math.min(lot.left, need - got);
      takes.push({ lot: lot.ref, sats });
      cost = add(cost, eurCost(lot, sats, input.rates));
      got += sats;
      lot.left -= sats;
      if (lot.left === 0) head++;
    }
    if (got < need) {
      out.problems.push({
        line: m.line,
        reason: `withdraws ${need} sats (${m.sats} and ${m.fee_sats} fee) but the lots bought on the exchange up to then hold only ${got} more`,
      });
      continue;
    }
    const amount = cents(cost);
    if (amount === '0.00') {
      out.problems.push({
        line: m.line,
        reason: 'the sats that left cost less than half a cent; a ledger event needs a positive amount',
      });
      continue;
    }
    const event: EventData = {
      type: 'exchange_to_wallet',
      occurred_at: m.day,
      from_wallet: input.exchange!,
      to_wallet: input.to_wallet!,
      sats: m.sats,
      fee_sats: m.fee_sats,
      amount,
      currency: 'EUR',
    };
    out.events.push({ line: m.line, reference: m.reference, event, takes });
  }
  return out;
}

/** `sats` of a lot at its cost per sat, in EUR at the rates of the lot's day. */
function eurCost(lot: Queued, sats: number, rates: ReadonlyMap<string, DayRates>): Fraction {
  const share = times(fractionOf(lot.amount), { n: BigInt(sats), d: BigInt(lot.sats) });
  if (lot.currency === 'EUR') return share;
  const r = rates.get(lot.day);
  if (!r) throw new Error(`no stored rates for ${lot.day}, the day of a ${lot.currency} lot`);
  return lot.currency === 'DKK' ? over(share, fractionOf(r.eur_dkk)) : times(share, fractionOf(r.usd_eur));
}

/** The days whose rates a plan of these movements may need: those of events with an amount, and of lots not in EUR. */
export function daysNeedingRates(movements: readonly Movement[]): string[] {
  const days = new Set<string>();
  for (const m of movements) {
    if (m.kind === 'withdrawal') days.add(m.day);
    if (m.kind === 'lot' && m.currency !== 'EUR') days.add(m.day);
    if (m.kind === 'event' && 'amount' in m.event && m.event.amount !== undefined)
      days.add(m.event.occurred_at);
  }
  return [...days].sort();
}
