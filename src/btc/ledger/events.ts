/**
 * The ledger's rules, pure (decide/evolve in the Emmett style): no database, no clock. The
 * service loads the state, asks `decide`, and persists what it answers in one transaction.
 */

export const EVENT_TYPES = ['bank_to_exchange', 'exchange_to_wallet', 'wallet_to_wallet'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const CURRENCIES = ['EUR', 'DKK', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export type EventData =
  | { type: 'bank_to_exchange'; occurred_at: string; wallet: number; amount: string; currency: Currency }
  | {
      type: 'exchange_to_wallet';
      occurred_at: string;
      from_wallet: number;
      to_wallet: number;
      sats: number;
      fee_sats: number;
      amount: string;
      currency: Currency;
    }
  | {
      type: 'wallet_to_wallet';
      occurred_at: string;
      from_wallet: number;
      to_wallet: number;
      sats: number;
      fee_sats: number;
    };

export type LedgerEvent = EventData & { id: number };

export interface WalletState {
  id: number;
  name: string;
  wallet_type: 'exchange' | 'wallet';
  balance: number;
}

/** The wallets an event names, with their balances. */
export interface LedgerState {
  wallets: ReadonlyMap<number, WalletState>;
}

export type Command =
  | { kind: 'create'; event: EventData }
  | { kind: 'replace'; previous: LedgerEvent; event: EventData }
  | { kind: 'delete'; previous: LedgerEvent };

/** What happened to the ledger: an event entered it or left it (a replace is both). */
export type Change = { kind: 'recorded'; event: EventData } | { kind: 'withdrawn'; event: EventData };

export interface Violation {
  status: 400 | 409 | 422;
  detail: string;
}

export type Decision = { ok: true; changes: Change[] } | { ok: false; violation: Violation };

const FIELDS: Record<EventType, readonly string[]> = {
  bank_to_exchange: ['wallet', 'amount', 'currency'],
  exchange_to_wallet: ['from_wallet', 'to_wallet', 'sats', 'fee_sats', 'amount', 'currency'],
  wallet_to_wallet: ['from_wallet', 'to_wallet', 'sats', 'fee_sats'],
};
const OPTIONAL_FIELDS = ['wallet', 'from_wallet', 'to_wallet', 'sats', 'fee_sats', 'amount', 'currency'];
const DECIMAL = /^\d{1,15}(\.\d{1,8})?$/;

/** The request body checked against its type: which fields it must and may carry, and their values. */
export function parseEvent(body: Record<string, unknown>): EventData | Violation {
  const type = body.type as EventType;
  const allowed = FIELDS[type];
  for (const field of OPTIONAL_FIELDS) {
    const present = body[field] !== undefined && body[field] !== null;
    if (present && !allowed.includes(field))
      return { status: 400, detail: `body.${field}: not a field of a ${type} event` };
    if (!present && allowed.includes(field))
      return { status: 400, detail: `body.${field}: required for a ${type} event` };
  }
  for (const field of ['wallet', 'from_wallet', 'to_wallet', 'sats'] as const) {
    const v = body[field];
    if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) > 0))
      return { status: 400, detail: `body.${field}: must be a positive integer` };
  }
  if (body.fee_sats !== undefined && !(Number.isSafeInteger(body.fee_sats) && (body.fee_sats as number) >= 0))
    return { status: 400, detail: 'body.fee_sats: must be an integer of at least 0' };
  let amount: string | undefined;
  if (body.amount !== undefined) {
    amount =
      typeof body.amount === 'number'
        ? String(body.amount)
        : typeof body.amount === 'string'
          ? body.amount
          : '';
    if (!DECIMAL.test(amount) || !/[1-9]/.test(amount))
      return {
        status: 400,
        detail: `body.amount: must be a positive decimal, not ${JSON.stringify(body.amount)}`,
      };
  }
  if (body.currency !== undefined && !CURRENCIES.includes(body.currency as Currency))
    return { status: 400, detail: `body.currency: must be one of ${CURRENCIES.join(', ')}` };
  const occurred_at = body.occurred_at as string;
  const n = (k: string) => body[k] as number;
  const currency = body.currency as Currency;
  switch (type) {
    case 'bank_to_exchange':
      return { type, occurred_at, wallet: n('wallet'), amount: amount!, currency };
    case 'exchange_to_wallet':
      return {
        type,
        occurred_at,
        from_wallet: n('from_wallet'),
        to_wallet: n('to_wallet'),
        sats: n('sats'),
        fee_sats: n('fee_sats'),
        amount: amount!,
        currency,
      };
    case 'wallet_to_wallet':
      return {
        type,
        occurred_at,
        from_wallet: n('from_wallet'),
        to_wallet: n('to_wallet'),
        sats: n('sats'),
        fee_sats: n('fee_sats'),
      };
  }
}

export function isViolation(x: unknown): x is Violation {
  return typeof x === 'object' && x !== null && 'status' in x && 'detail' in x;
}

/** The wallets an event names, for loading (and locking) the state `decide` needs. */
export function walletsOf(event: EventData): number[] {
  return event.type === 'bank_to_exchange' ? [event.wallet] : [event.from_wallet, event.to_wallet];
}

/** The sats each wallet gains (or loses) by the event, per SPEC's table. */
export function effects(event: EventData): Map<number, number> {
  const out = new Map<number, number>();
  const add = (w: number, d: number) => out.set(w, (out.get(w) ?? 0) + d);
  if (event.type === 'exchange_to_wallet') add(event.to_wallet, event.sats);
  if (event.type === 'wallet_to_wallet') {
    add(event.from_wallet, -(event.sats + event.fee_sats));
    add(event.to_wallet, event.sats);
  }
  return out;
}

export function evolve(state: LedgerState, change: Change): LedgerState {
  const sign = change.kind === 'recorded' ? 1 : -1;
  const wallets = new Map(state.wallets);
  for (const [id, delta] of effects(change.event)) {
    const w = wallets.get(id);
    if (w) wallets.set(id, { ...w, balance: w.balance + sign * delta });
  }
  return { wallets };
}

export function decide(command: Command, state: LedgerState): Decision {
  if (command.kind !== 'delete') {
    const wrong = checkWallets(command.event, state);
    if (wrong) return { ok: false, violation: wrong };
  }
  const changes: Change[] =
    command.kind === 'create'
      ? [{ kind: 'recorded', event: command.event }]
      : command.kind === 'replace'
        ? [
            { kind: 'withdrawn', event: command.previous },
            { kind: 'recorded', event: command.event },
          ]
        : [{ kind: 'withdrawn', event: command.previous }];
  const after = changes.reduce(evolve, state);
  for (const [id, w] of after.wallets) {
    if (w.balance < 0) {
      const before = state.wallets.get(id)?.balance ?? 0;
      return {
        ok: false,
        violation: {
          status: 409,
          detail: `wallet ${id} (${w.name}) would be ${-w.balance} sats below zero: it holds ${before} sats and the change takes ${before - w.balance}`,
        },
      };
    }
  }
  return { ok: true, changes };
}

function checkWallets(event: EventData, state: LedgerState): Violation | null {
  const roles: [string, number, boolean][] =
    event.type === 'bank_to_exchange'
      ? [['wallet', event.wallet, true]]
      : [
          ['from_wallet', event.from_wallet, event.type === 'exchange_to_wallet'],
          ['to_wallet', event.to_wallet, false],
        ];
  for (const [field, id, mustBeExchange] of roles) {
    const w = state.wallets.get(id);
    if (!w) return { status: 422, detail: `body.${field}: there is no wallet ${id}` };
    if (mustBeExchange && w.wallet_type !== 'exchange')
      return { status: 422, detail: `body.${field}: wallet ${id} (${w.name}) is not an exchange` };
  }
  if (event.type === 'wallet_to_wallet' && event.from_wallet === event.to_wallet)
    return { status: 422, detail: 'body.to_wallet: a transfer needs two different wallets' };
  return null;
}
