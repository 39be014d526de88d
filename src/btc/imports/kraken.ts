import { MAX_SATS } from '../ledger/events.js';
import { exactSats, fixedText, roundedSats } from './decimal.js';
import { amountOf, assetName, assetOf, instantOf, type Asset } from './kraken-fields.js';
import { byLine, byTimeThenLine, type ReadFile } from './movements.js';
import { fieldsOf, missingColumns, type CsvFile, type LineProblem } from './records.js';

/**
 * Kraken's ledger export (History → Export → Ledgers). Columns are matched by name; exports of
 * different years add `subclass`, `wallet`, `amountusd` and others, which are ignored but for
 * `wallet` (only the spot wallet's lines count). Each line changes one asset's balance by
 * `amount`, less `fee` in the same asset; lines of one deposit, withdrawal or trade share a
 * `refid`. A line without a `txid` is a pending or failed entry.
 */
export const KRAKEN_COLUMNS = ['txid', 'refid', 'time', 'type', 'asset', 'amount', 'fee'] as const;

interface Row {
  line: number;
  txid: string;
  refid: string;
  at: Date;
  day: string;
  type: string;
  subtype: string;
  wallet: string;
  asset: Asset;
  amountText: string;
  amount: bigint;
  fee: bigint;
}

/** The lines of a Kraken ledger export as movements, onto the exchange and the wallet the import names. */
export function readKraken(
  file: CsvFile,
  wallets: { exchange: number; to_wallet: number },
  now: Date,
): ReadFile {
  const missing = missingColumns(file, KRAKEN_COLUMNS);
  if (missing) return { movements: [], skipped: [], problems: [missing] };
  const out: ReadFile = { movements: [], skipped: [], problems: [] };
  const groups = new Map<string, Row[]>();
  for (const record of file.records) {
    const row = rowOf(file, record, now, out.problems);
    if (!row) continue;
    if (row.txid === '') out.skipped.push({ line: row.line, reason: 'no txid: a pending or failed entry' });
    else if (row.wallet !== '' && !/^spot\b/i.test(row.wallet))
      out.skipped.push({ line: row.line, reason: `in Kraken's "${row.wallet}" wallet, not the spot wallet` });
    else {
      const group = groups.get(row.refid);
      if (group) group.push(row);
      else groups.set(row.refid, [row]);
    }
  }
  for (const [refid, rows] of groups) {
    const of = (...types: string[]) => rows.filter((r) => types.includes(r.type));
    funding(refid, 'deposit', of('deposit'), wallets, out);
    funding(refid, 'withdrawal', of('withdrawal'), wallets, out);
    trade(refid, 'trade', of('trade'), out);
    trade(refid, 'purchase', of('spend', 'receive'), out);
    for (const r of rows.filter(
      (x) => !['deposit', 'withdrawal', 'trade', 'spend', 'receive'].includes(x.type),
    ))
      out.skipped.push({
        line: r.line,
        reason: `type ${r.type || '(empty)'}${r.subtype ? ` (${r.subtype})` : ''} is not imported`,
      });
  }
  out.movements.sort(byTimeThenLine);
  out.skipped.sort(byLine);
  out.problems.sort(byLine);
  return out;
}

function rowOf(
  file: CsvFile,
  record: CsvFile['records'][number],
  now: Date,
  problems: LineProblem[],
): Row | null {
  const f = fieldsOf(file, record);
  if ('reason' in f) {
    problems.push(f);
    return null;
  }
  const line = record.line;
  const wrong: string[] = [];
  const refid = f.get('refid');
  if (refid === '' || refid.length > 200)
    wrong.push(`refid: "${refid.slice(0, 40)}" is not a Kraken reference`);
  const time = instantOf(f.get('time'), now);
  if (typeof time === 'string') wrong.push(time);
  const asset = assetOf(f.get('asset'));
  if (!asset) wrong.push(`asset: "${f.get('asset').slice(0, 40)}" is not a Kraken asset name`);
  const amount = amountOf('amount', f.get('amount'), file.mark);
  if (typeof amount === 'string') wrong.push(amount);
  const fee = amountOf('fee', f.get('fee') || '0', file.mark);
  if (typeof fee === 'string') wrong.push(fee);
  if (
    wrong.length > 0 ||
    typeof time === 'string' ||
    !asset ||
    typeof amount === 'string' ||
    typeof fee === 'string'
  ) {
    problems.push(...wrong.map((reason) => ({ line, reason })));
    return null;
  }
  return {
    line,
    txid: f.get('txid'),
    refid,
    ...time,
    type: f.get('type').toLowerCase(),
    subtype: f.get('subtype'),
    wallet: f.get('wallet'),
    asset,
    amountText: f.get('amount'),
    amount,
    fee,
  };
}

/**
 * A deposit of EUR, DKK or USD is money from the bank on the exchange; a withdrawal of bitcoin
 * is sats leaving for the wallet. A line reversed by another of the same refid (a failed
 * withdrawal credited back) cancels with it.
 */
function funding(
  refid: string,
  kind: 'deposit' | 'withdrawal',
  rows: Row[],
  wallets: { exchange: number; to_wallet: number },
  out: ReadFile,
): void {
  if (rows.length === 0) return;
  const skip = (r: Row, reason: string): void => void out.skipped.push({ line: r.line, reason });
  if (rows.some((r) => r.amount > 0n) && rows.some((r) => r.amount < 0n)) {
    const lines = rows.map((r) => r.line).join(', ');
    for (const r of rows) skip(r, `${kind} ${refid} was reversed (lines ${lines})`);
    return;
  }
  const [r, ...again] = rows as [Row, ...Row[]];
  for (const x of again) skip(x, `repeats ${kind} ${refid} of line ${r.line}`);
  const name = assetName(r.asset);
  if (kind === 'deposit') {
    if (r.asset.kind !== 'fiat')
      return skip(
        r,
        r.asset.kind === 'btc'
          ? 'deposit of XBT: sats from outside have no known cost, so they make no lot'
          : `deposit of ${name}: only EUR, DKK and USD deposits are imported`,
      );
    if (r.amount <= 0n) return skip(r, 'deposit of no money');
    const event = {
      type: 'bank_to_exchange' as const,
      occurred_at: r.day,
      wallet: wallets.exchange,
      amount: fixedText(r.amount),
      currency: r.asset.currency,
    };
    out.movements.push({ kind: 'event', line: r.line, reference: refid, at: r.at.getTime(), event });
    return;
  }
  if (r.asset.kind !== 'btc')
    return skip(
      r,
      r.asset.kind === 'fiat'
        ? `withdrawal of ${name} to a bank is not imported`
        : `withdrawal of ${name} is not imported`,
    );
  const sats = exactSats(-r.amount);
  const fee = exactSats(r.fee);
  if (sats === null || fee === null || fee < 0n) {
    out.problems.push({
      line: r.line,
      reason: `amount: ${r.amountText} XBT, fee and all, is not a whole number of sats`,
    });
    return;
  }
  if (sats <= 0n) return skip(r, 'withdrawal of no sats');
  if (sats + fee > BigInt(MAX_SATS)) {
    out.problems.push({
      line: r.line,
      reason: `withdraws more than the ${MAX_SATS} sats there will ever be`,
    });
    return;
  }
  out.movements.push({
    kind: 'withdrawal',
    line: r.line,
    reference: refid,
    at: r.at.getTime(),
    day: r.day,
    sats: Number(sats),
    fee_sats: Number(fee),
  });
}

/**
 * The lines of one trade (or of one spend/receive purchase): a buy of bitcoin with one of the
 * ledger's currencies is a purchase lot of the sats received (less a fee taken in bitcoin) for
 * the money spent plus the fee taken in money. Anything else is left out, never guessed.
 */
function trade(refid: string, what: 'trade' | 'purchase', rows: Row[], out: ReadFile): void {
  if (rows.length === 0) return;
  const skipAll = (reason: string): void =>
    rows.forEach((r) => void out.skipped.push({ line: r.line, reason }));
  const btc = rows.filter((r) => r.asset.kind === 'btc');
  const fiat = rows.filter((r) => r.asset.kind === 'fiat');
  const credits = rows.filter((r) => r.asset.kind === 'fee_credit');
  const names = [...new Set(rows.map((r) => assetName(r.asset)))].join(' and ');
  const currencies = new Set(fiat.map((r) => assetName(r.asset)));
  if (btc.length + fiat.length + credits.length < rows.length || currencies.size > 1)
    return skipAll(`${what} ${refid} between ${names}: only buys of XBT with EUR, DKK or USD are imported`);
  if (btc.length === 0 || fiat.length === 0)
    return skipAll(`${what} ${refid}: only its ${names} side is in this file`);
  const sum = (xs: Row[], f: (r: Row) => bigint) => xs.reduce((s, r) => s + f(r), 0n);
  if (sum(btc, (r) => r.amount) <= 0n || sum(fiat, (r) => r.amount) >= 0n)
    return skipAll(`${what} ${refid} sells XBT: sales are not imported`);
  const sats = roundedSats(sum(btc, (r) => r.amount - r.fee));
  const cost = -sum(fiat, (r) => r.amount) + sum(fiat, (r) => r.fee);
  const first = btc[0]!;
  if (sats <= 0n || cost <= 0n) return skipAll(`${what} ${refid} buys no sats for money`);
  if (sats > BigInt(MAX_SATS)) {
    out.problems.push({ line: first.line, reason: `buys more than the ${MAX_SATS} sats there will ever be` });
    return;
  }
  for (const c of credits)
    out.skipped.push({
      line: c.line,
      reason: `${what} ${refid}: a fee in Kraken fee credits (KFEE) costs no money`,
    });
  const currency = fiat[0]!.asset.kind === 'fiat' ? fiat[0]!.asset.currency : 'EUR';
  out.movements.push({
    kind: 'lot',
    line: first.line,
    reference: refid,
    at: first.at.getTime(),
    day: first.day,
    sats: Number(sats),
    amount: fixedText(cost),
    currency,
  });
}
