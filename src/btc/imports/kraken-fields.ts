import { danishDate } from '../../shared/danish-time.js';
import type { Currency } from '../ledger/events.js';
import { parseFixed, type DecimalMark } from './decimal.js';
import { FIRST_DAY } from './movements.js';

/**
 * What a Kraken asset name stands for. Kraken writes bitcoin as XXBT, XBT or (in newer exports)
 * BTC, fiat with or without a Z (ZEUR, EUR), and balances in other states with a suffix: .HOLD
 * (funds on hold), .S (staked), .M (opt-in rewards), .P (parachain), .F (Kraken Rewards),
 * .B (yield-bearing). The suffix says where the asset sits, not what it is.
 */
export type Asset =
  | { kind: 'btc' }
  | { kind: 'fiat'; currency: Currency }
  | { kind: 'fee_credit' }
  | { kind: 'other'; name: string };

const ASSET_NAME = /^[A-Z0-9]{1,16}(\.[A-Z0-9]{1,8})?$/;
const BITCOIN = new Set(['XXBT', 'XBT', 'BTC']);
const LEDGER_FIAT: Record<string, Currency> = {
  ZEUR: 'EUR',
  EUR: 'EUR',
  ZDKK: 'DKK',
  DKK: 'DKK',
  ZUSD: 'USD',
  USD: 'USD',
};

/** The asset a name stands for, or null when the text is no Kraken asset name at all. */
export function assetOf(raw: string): Asset | null {
  if (!ASSET_NAME.test(raw)) return null;
  const base = raw.split('.')[0]!;
  if (BITCOIN.has(base)) return { kind: 'btc' };
  const currency = LEDGER_FIAT[base];
  if (currency) return { kind: 'fiat', currency };
  if (base === 'KFEE') return { kind: 'fee_credit' };
  // Kraken's four-letter legacy codes: X for crypto (XETH), Z for fiat (ZGBP).
  const plain = base.length === 4 && /^[XZ]/.test(base) ? base.slice(1) : base;
  return { kind: 'other', name: plain };
}

export const assetName = (a: Asset) =>
  a.kind === 'btc' ? 'XBT' : a.kind === 'fiat' ? a.currency : a.kind === 'fee_credit' ? 'KFEE' : a.name;

const TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|\+00:?00)?$/;

/** A Kraken time: UTC, `YYYY-MM-DD HH:MM:SS` with optional fractions of a second. */
export function instantOf(text: string, now: Date): { at: Date; day: string } | string {
  const m = TIME.exec(text);
  const nums = m ? m.slice(1, 7).map(Number) : [];
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0] = nums;
  const ms = Number((m?.[7] ?? '').padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  at.setUTCHours(h, mi, s, ms);
  const real =
    m !== null &&
    at.getUTCFullYear() === y &&
    at.getUTCMonth() === mo - 1 &&
    at.getUTCDate() === d &&
    at.getUTCHours() === h &&
    at.getUTCMinutes() === mi &&
    at.getUTCSeconds() === s;
  if (!real) return `time: "${text}" is not a UTC time YYYY-MM-DD HH:MM:SS`;
  if (at.getTime() > now.getTime()) return `time: ${text} is in the future`;
  const day = danishDate(at);
  if (day < FIRST_DAY) return `time: ${text} is before the first bitcoin block (${FIRST_DAY})`;
  return { at, day };
}

/** A Kraken amount or fee: a signed decimal of at most 10 decimals. */
export function amountOf(name: string, text: string, mark: DecimalMark): bigint | string {
  const v = parseFixed(text, mark, 10, true);
  if (v !== null) return v;
  const how = mark === ',' ? 'a decimal comma' : 'a decimal point';
  return `${name}: "${text.slice(0, 40)}" is not a number with ${how} and at most 10 decimals`;
}
