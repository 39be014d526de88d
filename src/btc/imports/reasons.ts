import { MAX_SATS, type Violation } from '../ledger/events.js';

/**
 * The ledger's refusal of one imported event, in words for the line it came from. The same
 * rules as POST /api/events (decide), worded for a file rather than a JSON body.
 */
export function lineReason(v: Violation): string {
  switch (v.kind) {
    case 'field_not_allowed':
      return `${v.field}: a ${v.type} event has no ${v.field}`;
    case 'field_required':
      return `${v.field}: required for a ${v.type} event`;
    case 'future_date':
      return `date ${v.date} is in the future (today is ${v.today})`;
    case 'too_many_sats_in_event':
      return `sats + fee_sats is ${v.sats}, more than the ${MAX_SATS} sats there will ever be`;
    case 'unknown_wallet':
      return `${v.field}: there is no wallet ${v.wallet}`;
    case 'not_an_exchange':
      return `${v.field}: wallet ${v.wallet} (${v.name}) is not an exchange`;
    case 'same_wallet':
      return 'to_wallet: a transfer needs two different wallets';
    case 'overdraft':
      return `wallet ${v.wallet} (${v.name}) would be ${v.shortfall} sats below zero on ${v.date}: its running balance may not go negative on any date`;
    case 'balance_too_large':
      return `wallet ${v.wallet} (${v.name}) would hold ${v.balance} sats, more than the ${MAX_SATS} there will ever be`;
    case 'no_event':
      return `no event ${v.id}`;
    case 'key_reused':
      return `key ${v.key} was already used`;
  }
}
