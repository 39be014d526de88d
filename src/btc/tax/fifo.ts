/**
 * The FIFO pools of the Danish annual return: one pool per owner across all of the owner's
 * wallets and exchanges; each disposal takes the oldest lots first. Pure: no database, clock or
 * HTTP. The movements and what each ledger event becomes are described in movements.ts; the
 * rules and their sources in docs/ledger.md ("Tax: the year's figures for SKAT").
 *
 * A lot's cost is split pro rata by sats, cumulatively: after d of its s sats are drawn, the
 * cost drawn so far is round(cost × d / s) (half up, to the øre), and each draw takes the
 * difference. So every part is within an øre of its exact share and the parts of a lot sum to
 * its cost exactly, however many partial draws there are.
 */
import {
  TaxInputError,
  type Disposal,
  type DisposalType,
  type IncomeRow,
  type LotDraw,
  type Movement,
  type OpenLot,
  type Owner,
  type TaxBook,
} from './movements.js';
import { oreText, share, toOre } from './ore.js';

/** A lot as the pool keeps it: its sats and cost (øre) since it was made or last merged, and how many are drawn. */
interface Lot {
  event_id: number;
  occurred_at: string;
  sats: number;
  cost: bigint | null;
  drawn: number;
}

/** A part of a lot taken out of a pool, its cost in øre. */
interface Draw {
  event_id: number;
  occurred_at: string;
  sats: number;
  cost: bigint | null;
}

const before = (a: { occurred_at: string; event_id: number }, b: { occurred_at: string; event_id: number }) =>
  a.occurred_at < b.occurred_at || (a.occurred_at === b.occurred_at && a.event_id < b.event_id);

const costDrawn = (lot: Lot, drawn: number) => (lot.cost === null ? null : share(lot.cost, drawn, lot.sats));

class Pool {
  /** In acquisition order (date, then event); those before `head` are used up. */
  private lots: Lot[] = [];
  private head = 0;
  held = 0;

  /**
   * A lot, kept in acquisition order: a lot taken over by succession keeps its own date, so it
   * may belong before lots bought since. A part of a lot the pool still holds joins it.
   */
  add(piece: Draw): void {
    this.held += piece.sats;
    let i = this.lots.length;
    while (i > this.head && before(piece, this.lots[i - 1]!)) i--;
    const same = i > this.head ? this.lots[i - 1]! : undefined;
    if (same?.event_id === piece.event_id) {
      const left = costDrawn(same, same.drawn);
      same.cost = same.cost === null || piece.cost === null ? null : same.cost - left! + piece.cost;
      same.sats = same.sats - same.drawn + piece.sats;
      same.drawn = 0;
      return;
    }
    const lot = { ...piece, drawn: 0 };
    if (i === this.lots.length) this.lots.push(lot);
    else this.lots.splice(i, 0, lot);
  }

  /** The oldest `n` sats, lot by lot. */
  draw(n: number, event_id: number, owner: Owner): Draw[] {
    if (n > this.held)
      throw new TaxInputError(
        event_id,
        `${owner} disposes of ${n - this.held} sats more than the open lots hold`,
      );
    const out: Draw[] = [];
    for (let need = n; need > 0;) {
      const lot = this.lots[this.head]!;
      const take = Math.min(lot.sats - lot.drawn, need);
      const from = costDrawn(lot, lot.drawn);
      lot.drawn += take;
      need -= take;
      const to = costDrawn(lot, lot.drawn);
      out.push({
        event_id: lot.event_id,
        occurred_at: lot.occurred_at,
        sats: take,
        cost: to === null ? null : to - from!,
      });
      if (lot.drawn === lot.sats) this.head++;
    }
    this.held -= n;
    if (this.head > 1024 && this.head * 2 > this.lots.length) {
      this.lots = this.lots.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  open(owner: Owner): OpenLot[] {
    return this.lots.slice(this.head).map((lot) => {
      const cost = lot.cost === null ? null : lot.cost - costDrawn(lot, lot.drawn)!;
      return {
        owner,
        event_id: lot.event_id,
        occurred_at: lot.occurred_at,
        sats: lot.sats - lot.drawn,
        cost_dkk: cost === null ? null : oreText(cost),
      };
    });
  }
}

/** Books the movements in order: the open lots, every disposal with the lots it drew on, and every income. */
export function fifo(movements: Iterable<Movement>): TaxBook {
  const pools = new Map<Owner, Pool>();
  const poolOf = (owner: Owner) => {
    let pool = pools.get(owner);
    if (!pool) pools.set(owner, (pool = new Pool()));
    return pool;
  };
  const disposals: Disposal[] = [];
  const income: IncomeRow[] = [];
  const lot = (m: Movement, sats: number, cost: bigint | null): Draw => ({
    event_id: m.event_id,
    occurred_at: m.occurred_at,
    sats,
    cost,
  });
  const dispose = (m: Movement, type: DisposalType, sats: number, fee_sats: number, proceeds: bigint) => {
    const draws = poolOf(m.owner).draw(sats + fee_sats, m.event_id, m.owner);
    disposals.push(disposalRow(m, type, sats + fee_sats, fee_sats, proceeds, draws));
  };
  let last: Movement | undefined;

  for (const m of movements) {
    checkMovement(m, last);
    last = m;
    switch (m.kind) {
      case 'acquisition':
        poolOf(m.owner).add(lot(m, m.sats, m.cost_dkk === null ? null : money(m, m.cost_dkk, 'cost_dkk')));
        break;
      case 'income': {
        const value = money(m, m.value_dkk, 'value_dkk');
        poolOf(m.owner).add(lot(m, m.sats, value));
        const { owner, event_id, occurred_at, sats } = m;
        income.push({ owner, event_id, occurred_at, sats, value_dkk: oreText(value) });
        break;
      }
      case 'disposal':
        dispose(m, m.type, m.sats, m.fee_sats, money(m, m.proceeds_dkk, 'proceeds_dkk'));
        break;
      case 'fee':
        dispose(m, 'fee', 0, m.fee_sats, money(m, m.value_dkk, 'value_dkk'));
        break;
      case 'transfer':
        if (m.succession) {
          for (const part of poolOf(m.owner).draw(m.sats, m.event_id, m.owner)) poolOf(m.to_owner).add(part);
          if (m.fee_sats > 0) {
            if (m.fee_value_dkk === null) throw new TaxInputError(m.event_id, 'a fee needs fee_value_dkk');
            dispose(m, 'fee', 0, m.fee_sats, money(m, m.fee_value_dkk, 'fee_value_dkk'));
          }
        } else {
          const value = money(m, m.value_dkk, 'value_dkk');
          dispose(m, 'gift', m.sats, m.fee_sats, value);
          poolOf(m.to_owner).add(lot(m, m.sats, value));
        }
        break;
    }
  }
  const owners = [...pools.keys()].sort();
  return { lots: owners.flatMap((o) => pools.get(o)!.open(o)), disposals, income };
}

function disposalRow(
  m: Movement,
  type: DisposalType,
  sats: number,
  fee_sats: number,
  proceeds: bigint,
  draws: Draw[],
): Disposal {
  const known = draws.every((d) => d.cost !== null);
  const cost = known ? draws.reduce((sum, d) => sum + d.cost!, 0n) : null;
  const lots: LotDraw[] = draws.map((d) => ({
    event_id: d.event_id,
    occurred_at: d.occurred_at,
    sats: d.sats,
    cost_dkk: d.cost === null ? null : oreText(d.cost),
  }));
  return {
    owner: m.owner,
    event_id: m.event_id,
    occurred_at: m.occurred_at,
    type,
    sats,
    fee_sats,
    proceeds_dkk: oreText(proceeds),
    cost_dkk: cost === null ? null : oreText(cost),
    gain_dkk: cost === null ? null : signed(proceeds - cost),
    lots,
  };
}

const signed = (ore: bigint) => (ore < 0n ? `-${oreText(-ore)}` : oreText(ore));

function money(m: Movement, text: string, field: string): bigint {
  const ore = toOre(text);
  if (ore === null) throw new TaxInputError(m.event_id, `${field} is not an amount of DKK ≥ 0: ${text}`);
  return ore;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const whole = (n: number, least: number) => Number.isSafeInteger(n) && n >= least;

function checkMovement(m: Movement, last: Movement | undefined): void {
  const wrong = (detail: string) => new TaxInputError(m.event_id, detail);
  if (!DAY.test(m.occurred_at)) throw wrong(`occurred_at is not a date: ${m.occurred_at}`);
  if (last && !before(last, m))
    throw wrong(
      `comes after event ${last.event_id} (${last.occurred_at}) but is not later in the ledger's order`,
    );
  if (m.kind !== 'fee' && !whole(m.sats, 1)) throw wrong(`sats must be a positive integer: ${m.sats}`);
  if ((m.kind === 'disposal' || m.kind === 'transfer') && !whole(m.fee_sats, 0))
    throw wrong(`fee_sats must be an integer ≥ 0: ${m.fee_sats}`);
  if (m.kind === 'fee' && !whole(m.fee_sats, 1))
    throw wrong(`fee_sats must be a positive integer: ${m.fee_sats}`);
  if (m.kind === 'transfer' && m.to_owner === m.owner) throw wrong('a transfer is between two owners');
}
