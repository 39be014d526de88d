import { Refusal, type RefusalKind } from '../../shared/refusal.js';
import { MAX_SATS, type Violation } from './events.js';

const KIND_OF: Record<Violation['kind'], RefusalKind> = {
  field_not_allowed: 'invalid',
  field_required: 'invalid',
  future_date: 'invalid',
  too_many_sats_in_event: 'invalid',
  no_event: 'not-found',
  unknown_wallet: 'unprocessable',
  not_an_exchange: 'unprocessable',
  same_wallet: 'unprocessable',
  key_reused: 'unprocessable',
  overdraft: 'conflict',
  balance_too_large: 'conflict',
};

/** The words of a refusal about a JSON body (an import words the same reason for its file's line). */
function detailOf(v: Violation): string {
  switch (v.kind) {
    case 'field_not_allowed':
      return `body.${v.field}: not a field of a ${v.type} event`;
    case 'field_required':
      return `body.${v.field}: required for a ${v.type} event`;
    case 'future_date':
      return `body.occurred_at: ${v.date} is in the future (today is ${v.today})`;
    case 'too_many_sats_in_event':
      return `body.sats: sats + fee_sats is ${v.sats}, more than the ${MAX_SATS} sats there will ever be`;
    case 'no_event':
      return `no event ${v.id}`;
    case 'unknown_wallet':
      return `body.${v.field}: there is no wallet ${v.wallet}`;
    case 'not_an_exchange':
      return `body.${v.field}: wallet ${v.wallet} (${v.name}) is not an exchange`;
    case 'same_wallet':
      return 'body.to_wallet: a transfer needs two different wallets';
    case 'key_reused':
      return `Idempotency-Key: "${v.key}" was already used with another body`;
    case 'overdraft':
      return `wallet ${v.wallet} (${v.name}) would be ${v.shortfall} sats below zero on ${v.date}: its running balance may not go negative on any date`;
    case 'balance_too_large':
      return `wallet ${v.wallet} (${v.name}) would hold ${v.balance} sats, more than the ${MAX_SATS} there will ever be`;
  }
}

/**
 * The ledger's refusal of a change: a Refusal of the kind its reason calls for, with the reason
 * kept (a shortfall names its wallet, date and sats) for those who word it otherwise (an import's
 * lines).
 */
export class LedgerRefusal extends Refusal {
  constructor(readonly reason: Violation) {
    super(KIND_OF[reason.kind], detailOf(reason));
  }
}
