import { Big } from 'big.js';

/**
 * DKK as whole øre in a BigInt: exact, and the half-up division of a lot's cost by its sats
 * written out in integers (a cost times 2.1e15 sats passes 2^53). Plain decimal text is read and
 * written with string and BigInt steps (a year of 100,000 events reads and writes hundreds of
 * thousands of amounts); any other form big.js accepts goes through big.js.
 */

const PLAIN = /^(\d+)(?:\.(\d*))?$/;

/** Decimal text to øre, rounded half up once (the row's one rounding); null when not a decimal ≥ 0. */
export function toOre(text: string): bigint | null {
  const plain = PLAIN.exec(text);
  if (plain) {
    const [, whole = '', frac = ''] = plain;
    const up = frac.length > 2 && frac[2]! >= '5' ? 1n : 0n;
    return BigInt(whole) * 100n + BigInt(frac.slice(0, 2).padEnd(2, '0')) + up;
  }
  let x: Big;
  try {
    x = new Big(text);
  } catch {
    return null;
  }
  if (x.lt(0)) return null;
  return BigInt(x.times(100).round(0, Big.roundHalfUp).toFixed(0));
}

/** Øre ≥ 0 as decimal text with two decimals. */
export function oreText(ore: bigint): string {
  const digits = ore.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** round(cost × part / whole) half up, for cost ≥ 0 and 0 ≤ part ≤ whole, whole > 0. */
export function share(cost: bigint, part: number, whole: number): bigint {
  const w = BigInt(whole);
  return (cost * BigInt(part) * 2n + w) / (2n * w);
}
