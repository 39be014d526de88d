import { HttpProblem, problemBody } from '../../http/problem.js';
import { MAX_SATS, type Violation } from './events.js';
import type { Answer, Outcome } from './service.js';

/**
 * The HTTP edge's words for the ledger's refusals: the body's own fields are a 400, an event
 * or a wallet that is not there a 404 or 422, and a change the history cannot take a 409.
 */
export function problemOf(v: Violation): HttpProblem {
  switch (v.kind) {
    case 'field_not_allowed':
      return new HttpProblem(400, `body.${v.field}: not a field of a ${v.type} event`);
    case 'field_required':
      return new HttpProblem(400, `body.${v.field}: required for a ${v.type} event`);
    case 'future_date':
      return new HttpProblem(400, `body.occurred_at: ${v.date} is in the future (today is ${v.today})`);
    case 'too_many_sats_in_event':
      return new HttpProblem(
        400,
        `body.sats: sats + fee_sats is ${v.sats}, more than the ${MAX_SATS} sats there will ever be`,
      );
    case 'no_event':
      return new HttpProblem(404, `no event ${v.id}`);
    case 'unknown_wallet':
      return new HttpProblem(422, `body.${v.field}: there is no wallet ${v.wallet}`);
    case 'not_an_exchange':
      return new HttpProblem(422, `body.${v.field}: wallet ${v.wallet} (${v.name}) is not an exchange`);
    case 'same_wallet':
      return new HttpProblem(422, 'body.to_wallet: a transfer needs two different wallets');
    case 'key_reused':
      return new HttpProblem(422, `Idempotency-Key: "${v.key}" was already used with another body`);
    case 'overdraft':
      return new HttpProblem(
        409,
        `wallet ${v.wallet} (${v.name}) would be ${v.shortfall} sats below zero on ${v.date}: its running balance may not go negative on any date`,
      );
    case 'balance_too_large':
      return new HttpProblem(
        409,
        `wallet ${v.wallet} (${v.name}) would hold ${v.balance} sats, more than the ${MAX_SATS} there will ever be`,
      );
  }
}

/** The value of a change, or its refusal thrown as problem+json. */
export function valueOf<T>(o: Outcome<T>): T {
  if (!o.ok) throw problemOf(o.violation);
  return o.value;
}

/** A create's answer, as sent and as stored for its Idempotency-Key. */
export function createdAnswer(o: Outcome<unknown>): Answer {
  if (o.ok) return { status: 201, body: o.value };
  const p = problemOf(o.violation);
  return { status: p.status, body: problemBody(p.status, p.detail) };
}
