import { Big } from 'big.js';
import type { Owner, TaxBook, YearFigures } from './movements.js';

const yearOf = (row: { occurred_at: string }) => Number(row.occurred_at.slice(0, 4));

/**
 * One owner's figures for one year: gains and losses summed apart (never netted), income,
 * rubrik 20 = gains + income, rubrik 58 = the losses as a positive number. The sums are of the
 * rows as answered (each rounded once to the øre), so they add up exactly. A disposal of unknown
 * cost is left out of the sums; it names the acquisitions to give a cost and makes the year
 * incomplete.
 */
export function yearFigures(book: TaxBook, year: number, owner: Owner): YearFigures {
  let gains = new Big(0);
  let losses = new Big(0);
  let income = new Big(0);
  const unknown = new Set<number>();
  for (const d of book.disposals) {
    if (d.owner !== owner || yearOf(d) !== year) continue;
    if (d.gain_dkk === null) {
      for (const lot of d.lots) if (lot.cost_dkk === null) unknown.add(lot.event_id);
      continue;
    }
    const gain = new Big(d.gain_dkk);
    if (gain.gte(0)) gains = gains.plus(gain);
    else losses = losses.minus(gain);
  }
  for (const row of book.income)
    if (row.owner === owner && yearOf(row) === year) income = income.plus(row.value_dkk);
  return {
    year,
    owner,
    gains_dkk: gains.toFixed(2),
    losses_dkk: losses.toFixed(2),
    income_dkk: income.toFixed(2),
    rubrik_20_dkk: gains.plus(income).toFixed(2),
    rubrik_58_dkk: losses.toFixed(2),
    unknown_cost: [...unknown].sort((a, b) => a - b),
    complete: unknown.size === 0,
  };
}

/** The figures of every year and owner that has a disposal or an income, by year, then owner. */
export function allYearFigures(book: TaxBook): YearFigures[] {
  const keys = new Map<string, [number, Owner]>();
  for (const row of [...book.disposals, ...book.income])
    keys.set(`${yearOf(row)}\u0000${row.owner}`, [yearOf(row), row.owner]);
  return [...keys.values()]
    .sort(([ya, oa], [yb, ob]) => ya - yb || (oa < ob ? -1 : oa > ob ? 1 : 0))
    .map(([year, owner]) => yearFigures(book, year, owner));
}
