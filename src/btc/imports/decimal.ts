/**
 * Exact decimal arithmetic for imports: amounts as BigInt counts of 10^-10 (Kraken writes crypto
 * amounts with 10 decimals), and costs as fractions of BigInts, rounded to the cent once.
 */

/** 10 decimals: the finest amount an export carries. */
export const DECIMALS = 10;
const SCALE = 10n ** BigInt(DECIMALS);
/** One sat is 10^-8 BTC, 100 units of 10^-10. */
const UNITS_PER_SAT = 100n;

/** Which character separates the decimals: a dot, or a comma as Danish spreadsheets write it. */
export type DecimalMark = '.' | ',';

/**
 * A decimal written with at most `maxDecimals` decimals and 15 integer digits, signed when
 * `signed`, as its exact count of 10^-10; null when the text is no such number (thousands
 * separators, exponents, spaces and the other decimal mark included).
 */
export function parseFixed(
  text: string,
  mark: DecimalMark,
  maxDecimals: number,
  signed = false,
): bigint | null {
  const m = new RegExp(`^(${signed ? '-?' : ''})(\\d{1,15})(?:\\${mark}(\\d{1,${maxDecimals}}))?$`).exec(
    text,
  );
  if (!m) return null;
  const [, sign, whole = '', frac = ''] = m;
  const value = BigInt(whole) * SCALE + BigInt(frac.padEnd(DECIMALS, '0'));
  return sign === '-' ? -value : value;
}

/** Plain decimal text with at least `minDecimals` decimals and no trailing zeros beyond them: 500.0000 → 500.00. */
export function fixedText(value: bigint, minDecimals = 2): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const whole = abs / SCALE;
  let frac = (abs % SCALE).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  frac = frac.padEnd(minDecimals, '0');
  return `${sign}${whole}${frac ? `.${frac}` : ''}`;
}

/** The sats in an amount of BTC when it is a whole number of them; null otherwise. */
export function exactSats(btc: bigint): bigint | null {
  return btc % UNITS_PER_SAT === 0n ? btc / UNITS_PER_SAT : null;
}

/** The sats in an amount of BTC, rounded half up (Kraken keeps 10 decimals, the ledger whole sats). */
export function roundedSats(btc: bigint): bigint {
  const half = UNITS_PER_SAT / 2n;
  return btc >= 0n ? (btc + half) / UNITS_PER_SAT : -((-btc + half) / UNITS_PER_SAT);
}

/** A non-negative rational number. */
export interface Fraction {
  n: bigint;
  d: bigint;
}

export const ZERO: Fraction = { n: 0n, d: 1n };

/** A decimal text (a stored amount or rate, e.g. 7.460300) as an exact fraction. */
export function fractionOf(text: string): Fraction {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a non-negative decimal: ${text}`);
  const frac = m[2] ?? '';
  return { n: BigInt(`${m[1]}${frac}`), d: 10n ** BigInt(frac.length) };
}

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

function reduced(n: bigint, d: bigint): Fraction {
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

export function add(a: Fraction, b: Fraction): Fraction {
  return reduced(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function times(a: Fraction, b: Fraction): Fraction {
  return reduced(a.n * b.n, a.d * b.d);
}

export function over(a: Fraction, b: Fraction): Fraction {
  return reduced(a.n * b.d, a.d * b.n);
}

/** Rounded half up to the cent, as decimal text with two decimals (as SQL numeric rounds a positive). */
export function cents(x: Fraction): string {
  const hundredths = (x.n * 200n + x.d) / (2n * x.d);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}
