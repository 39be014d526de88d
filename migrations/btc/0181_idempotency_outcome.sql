-- An Idempotency-Key keeps the ledger's outcome (the created event, or the refusal's kind and
-- detail), not an HTTP answer: the edge words it alike on the first answer and on every replay.
-- Keys stored before keep their status and body and replay as they are until retention prunes
-- them (24 hours).
alter table btc.idempotency_keys
  add column outcome jsonb,
  alter column status drop not null,
  alter column body drop not null,
  add check (outcome is not null or (status is not null and body is not null));
