import { isCalendarDate } from '../../shared/danish-time.js';
import {
  CURRENCIES,
  EVENT_TYPES,
  RECEIVE_KINDS,
  isViolation,
  MAX_SATS,
  parseEvent,
  type Currency,
  type EventType,
  type Violation,
} from '../ledger/events.js';
import { fixedText, parseFixed } from './decimal.js';
import { lineReason } from './reasons.js';
import { byLine, byTimeThenLine, FIRST_DAY, type ImportWallets, type ReadFile } from './movements.js';
import { fieldsOf, missingColumns, type CsvFile, type LineProblem } from './records.js';

/**
 * The CSV any exchange or a hand-kept spreadsheet can give: one ledger event per line. Wallets
 * come from the optional columns `wallet`, `from_wallet`, `to_wallet` (wallet names) or else
 * from the import's `exchange` and `to_wallet`.
 */
export const CSV_COLUMNS = ['date', 'type', 'sats', 'fee_sats', 'amount', 'currency', 'reference'] as const;
const WALLET_COLUMNS = ['wallet', 'from_wallet', 'to_wallet'] as const;
const LAST_DAY = '2099-12-31';

/** The lines of a generic CSV file as events; `walletIds` finds a wallet by its name. */
export function readGenericCsv(
  file: CsvFile,
  wallets: ImportWallets,
  walletIds: ReadonlyMap<string, number>,
): ReadFile {
  const missing = missingColumns(file, CSV_COLUMNS);
  if (missing) return { movements: [], skipped: [], problems: [missing] };
  const out: ReadFile = { movements: [], skipped: [], problems: [] };
  const seen = new Map<string, number>();
  for (const record of file.records) {
    const f = fieldsOf(file, record);
    if ('reason' in f) {
      out.problems.push(f);
      continue;
    }
    const line = record.line;
    const wrong: string[] = [];
    const fail = (reason: string) => (wrong.push(reason), undefined);
    const day =
      dayOf(f.get('date')) ??
      fail(
        `date: "${f.get('date').slice(0, 40)}" is not a day YYYY-MM-DD (or DD-MM-YYYY) from ${FIRST_DAY} to ${LAST_DAY}`,
      );
    const typeText = f.get('type');
    const type = (EVENT_TYPES as readonly string[]).includes(typeText)
      ? (typeText as EventType)
      : fail(`type: "${typeText.slice(0, 40)}" is not one of ${EVENT_TYPES.join(', ')}`);
    const sats = count('sats', f.get('sats'), 1, wrong);
    const fee_sats = count('fee_sats', f.get('fee_sats'), 0, wrong);
    const amountText = f.get('amount');
    const amount = amountText === '' ? undefined : parseFixed(amountText, file.mark, 8);
    if (amount === null || amount === 0n)
      wrong.push(
        `amount: "${amountText.slice(0, 40)}" is not a positive amount with a decimal ${file.mark === ',' ? 'comma' : 'point'} and at most 8 decimals`,
      );
    const currencyText = f.get('currency').toUpperCase();
    const currency =
      currencyText === ''
        ? undefined
        : (CURRENCIES as readonly string[]).includes(currencyText)
          ? (currencyText as Currency)
          : fail(`currency: "${f.get('currency').slice(0, 40)}" is not one of ${CURRENCIES.join(', ')}`);
    const kindText = f.get('kind');
    const kind =
      kindText === ''
        ? undefined
        : (RECEIVE_KINDS as readonly string[]).includes(kindText)
          ? kindText
          : fail(`kind: "${kindText.slice(0, 40)}" is not one of ${RECEIVE_KINDS.join(', ')}`);
    const reference = f.get('reference');
    if (reference === '' || reference.length > 200)
      wrong.push(
        'reference: each line needs its own reference of 1 to 200 characters, so that a re-import knows it',
      );
    else if (seen.has(reference))
      wrong.push(`reference: "${reference}" is already on line ${seen.get(reference)}`);
    else seen.set(reference, line);
    const named = walletsOf(f, walletIds, wrong);
    if (wrong.length > 0 || day === undefined || type === undefined) {
      out.problems.push(...wrong.map((reason) => ({ line, reason })));
      continue;
    }
    const onExchange = ['bank_to_exchange', 'exchange_buy', 'exchange_sell'].includes(type);
    const body: Record<string, unknown> = {
      type,
      occurred_at: day,
      wallet: named.wallet ?? (onExchange ? wallets.exchange : undefined),
      from_wallet: named.from_wallet ?? (type === 'exchange_to_wallet' ? wallets.exchange : undefined),
      to_wallet: named.to_wallet ?? (onExchange || type === 'spend' ? undefined : wallets.to_wallet),
      sats,
      fee_sats,
      kind,
      amount: amount ? fixedText(amount) : undefined,
      currency,
    };
    const event = parseEvent(body);
    if (isViolation(event)) {
      out.problems.push({ line, reason: fieldReason(event) });
      continue;
    }
    out.movements.push({ kind: 'event', line, reference, at: Date.parse(`${day}T00:00:00Z`), event });
  }
  out.movements.sort(byTimeThenLine);
  out.problems.sort(byLine);
  return out;
}

/** parseEvent's refusal of a line's fields, with where a missing wallet could come from. */
function fieldReason(v: Violation): string {
  const where: Record<string, string> = {
    wallet: ' (a wallet column of wallet names, or exchange=)',
    from_wallet:
      v.kind === 'field_required' && v.type === 'exchange_to_wallet'
        ? ' (a from_wallet column, or exchange=)'
        : ' (a from_wallet column of wallet names)',
    to_wallet: ' (a to_wallet column of wallet names, or to_wallet=)',
  };
  const reason = lineReason(v);
  return v.kind === 'field_required' ? `${reason}${where[v.field] ?? ''}` : `${reason}; leave it empty`;
}

/** YYYY-MM-DD, or DD-MM-YYYY and DD.MM.YYYY as Danish spreadsheets write days. */
function dayOf(text: string): string | undefined {
  const dmy = /^(\d{2})[-.](\d{2})[-.](\d{4})$/.exec(text);
  const day = dmy ? `${dmy[3]}-${dmy[2]}-${dmy[1]}` : text;
  return isCalendarDate(day) && day >= FIRST_DAY && day <= LAST_DAY ? day : undefined;
}

/** A whole number of sats written plainly; undefined when the field is empty. */
function count(name: string, text: string, min: number, wrong: string[]): number | undefined {
  if (text === '') return undefined;
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (Number.isInteger(n) && n >= min && n <= MAX_SATS) return n;
  wrong.push(`${name}: "${text.slice(0, 40)}" is not a whole number of sats from ${min} to ${MAX_SATS}`);
  return undefined;
}

function walletsOf(
  f: { get: (name: string) => string },
  walletIds: ReadonlyMap<string, number>,
  wrong: string[],
): Partial<Record<(typeof WALLET_COLUMNS)[number], number>> {
  const out: Partial<Record<(typeof WALLET_COLUMNS)[number], number>> = {};
  for (const column of WALLET_COLUMNS) {
    const name = f.get(column);
    if (name === '') continue;
    const id = walletIds.get(name);
    if (id === undefined) wrong.push(`${column}: there is no wallet named "${name.slice(0, 100)}"`);
    else out[column] = id;
  }
  return out;
}

export type { LineProblem };
