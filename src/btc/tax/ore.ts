import { Big } from 'big.js';

/**
 * DKK as whole øre in a BigInt: exact, and the half-up division of a lot's cost by its sats
 * written out in integers (a cost times 2.1e15 sats passes 2^53). big.js reads and writes the
 * decimal text at the edges.
 */

/** Decimal text to øre, rounded half up once (the row's one rounding); null when not a decimal ≥ 0. */
export function toOre(text: string): bigint | null {
  let x: Big;
  try {
    x = new Big(text);
  } catch {
    return null;
  }
  if (x.lt(0)) return null;
  return BigInt(x.times(100).round(0, Big.roundHalfUp).toFixed(0));
}

export function oreText(ore: bigint): string {
  return new Big(ore.toString()).div(100).toFixed(2);
}

/** round(cost × part / whole) half up, for cost ≥ 0 and 0 ≤ part ≤ whole, whole > 0. */
export function share(cost: bigint, part: number, whole: number): bigint {
  const w = BigInt(whole);
  return (cost * BigInt(part) * 2n + w) / (2n * w);
}
