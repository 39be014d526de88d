-- Energinet's charges as data, from DatahubPricelist (GLN ENERGINET_GLN, charge type D03):
-- code 40000 transmission tariff, 41000 system tariff, EA-001 electricity tax (elafgift).
-- valid_from/valid_to are Danish wall-clock times, [valid_from, valid_to), null = open-ended;
-- dkk_per_kwh[1] is 00:00-01:00 local, ..., [24] 23:00-24:00, DKK/kWh excl. VAT (a flat record
-- repeats Price1). Where records overlap, the one starting last holds.
create table power.charge_periods (
  owner_gln text not null check (owner_gln ~ '^[0-9]{13}$'),
  charge text not null check (charge in ('transmission', 'system', 'electricity_tax')),
  charge_type_code text not null,
  valid_from timestamp not null,
  valid_to timestamp,
  dkk_per_kwh numeric[] not null check (array_length(dkk_per_kwh, 1) = 24),
  source text not null,
  updated_at timestamptz not null default now(),
  primary key (owner_gln, charge, valid_from),
  check (valid_to is null or valid_to > valid_from)
);

-- Each stored hour carries the charges valid at its wall-clock hour, DKK/kWh; null while no
-- period covers the hour (the consumer price of that hour is then unknown, never guessed).
alter table power.elprices
  add column transmission_dkk_kwh numeric,
  add column system_dkk_kwh numeric,
  add column electricity_tax_dkk_kwh numeric;
