import { Big } from 'big.js';
import type { Currency, EventData, EventType, ReceiveKind, Violation } from './events.js';

/** The fields each event type carries beside `type` and `occurred_at`, all of them required. */
export const EVENT_FIELDS: Record<EventType, readonly string[]> = {
  bank_to_exchange: ['wallet', 'amount', 'currency'],
  exchange_to_wallet: ['from_wallet', 'to_wallet', 'sats', 'fee_sats', 'amount', 'currency'],
  wallet_to_wallet: ['from_wallet', 'to_wallet', 'sats', 'fee_sats'],
  exchange_buy: ['wallet', 'sats', 'amount', 'currency'],
  exchange_sell: ['wallet', 'sats', 'amount', 'currency'],
  spend: ['from_wallet', 'sats', 'fee_sats'],
  receive: ['to_wallet', 'sats', 'kind'],
};
/** The fields a type may carry or leave out, together: all of them or none. */
export const EVENT_OPTIONAL: Record<EventType, readonly string[]> = {
  bank_to_exchange: [],
  exchange_to_wallet: [],
  wallet_to_wallet: [],
  exchange_buy: [],
  exchange_sell: [],
  spend: ['amount', 'currency'],
  receive: ['amount', 'currency'],
};
const ANY_FIELD = ['wallet', 'from_wallet', 'to_wallet', 'sats', 'fee_sats', 'kind', 'amount', 'currency'];

/**
 * A body the schema took, as the event of its type: which fields the type carries. The amount
 * is kept as its exact decimal text (the schema let through only numbers whose digits a float
 * kept, so a number's shortest text is its value).
 */
export function parseEvent(body: Record<string, unknown>): EventData | Violation {
  const type = body.type as EventType;
  const required = EVENT_FIELDS[type];
  const optional = EVENT_OPTIONAL[type];
  const present = (field: string) => body[field] !== undefined && body[field] !== null;
  for (const field of ANY_FIELD) {
    if (present(field) && !required.includes(field) && !optional.includes(field))
      return { kind: 'field_not_allowed', field, type };
    if (!present(field) && required.includes(field)) return { kind: 'field_required', field, type };
  }
  const missing = optional.find((f) => !present(f));
  if (missing && optional.some(present)) return { kind: 'field_required', field: missing, type };
  const occurred_at = body.occurred_at as string;
  const n = (k: string) => body[k] as number;
  const fiat = present('amount')
    ? { amount: decimalText(body.amount as string | number), currency: body.currency as Currency }
    : undefined;
  switch (type) {
    case 'bank_to_exchange':
      return { type, occurred_at, wallet: n('wallet'), ...fiat! };
    case 'exchange_to_wallet':
      return {
        type,
        occurred_at,
        from_wallet: n('from_wallet'),
        to_wallet: n('to_wallet'),
        sats: n('sats'),
        fee_sats: n('fee_sats'),
        ...fiat!,
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
    case 'exchange_buy':
    case 'exchange_sell':
      return { type, occurred_at, wallet: n('wallet'), sats: n('sats'), ...fiat! };
    case 'spend':
      return {
        type,
        occurred_at,
        from_wallet: n('from_wallet'),
        sats: n('sats'),
        fee_sats: n('fee_sats'),
        ...fiat,
      };
    case 'receive':
      return {
        type,
        occurred_at,
        to_wallet: n('to_wallet'),
        sats: n('sats'),
        kind: body.kind as ReceiveKind,
        ...fiat,
      };
  }
}

/** A string as given; a number as its plain decimal text (1e-7 is 0.0000001). */
export function decimalText(v: string | number): string {
  return typeof v === 'string' ? v : new Big(v).toFixed();
}
