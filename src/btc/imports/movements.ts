import type { Currency, EventData } from '../ledger/events.js';
import type { LineProblem } from './records.js';

export const SOURCES = ['kraken', 'csv'] as const;
export type Source = (typeof SOURCES)[number];

/** The bitcoin ledger begins with the genesis block; no import line is dated before it. */
export const FIRST_DAY = '2009-01-03';

/**
 * What one line (or one group of lines) of an export means for the ledger, before it meets the
 * stored state: an event as it is, a purchase lot, or a withdrawal whose cost the lots give.
 * `at` orders them (milliseconds; the start of the day where a source has only days).
 */
export type Movement =
  | { kind: 'event'; line: number; reference: string; at: number; event: EventData }
  | {
      kind: 'lot';
      line: number;
      reference: string;
      at: number;
      day: string;
      sats: number;
      amount: string;
      currency: Currency;
    }
  | {
      kind: 'withdrawal';
      line: number;
      reference: string;
      at: number;
      day: string;
      sats: number;
      fee_sats: number;
    };

/** A file read: what it means, what it leaves out and why, and what is wrong in it. */
export interface ReadFile {
  movements: Movement[];
  skipped: LineProblem[];
  problems: LineProblem[];
}

/** The wallets an import puts its events on, from the query (or the command line). */
export interface ImportWallets {
  exchange?: number;
  to_wallet?: number;
}

export const byTimeThenLine = (a: { at: number; line: number }, b: { at: number; line: number }) =>
  a.at - b.at || a.line - b.line;

export const byLine = (a: { line: number }, b: { line: number }) => a.line - b.line;
