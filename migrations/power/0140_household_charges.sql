-- The household's charges as data: every tariff, subscription and fee that applies to it, each
-- with its validity in Danish wall-clock time ([valid_from, valid_to), null = open-ended) and where
-- it came from: `meter` (listed by the household's metering point) or `config` (GRID_COMPANY_GLN
-- and ENERGINET_GLN without a meter). `prices_from` says whose prices these are: DatahubPricelist
-- (the charge's history, found by owner, charge type and Note = name) or the meter's own.
-- Tariffs hold 24 DKK/kWh values, [1] = 00:00-01:00 local; subscriptions and fees one value,
-- DKK per `resolution` (P1M a month, P1D a day). Periods of one charge never overlap.
create table power.household_charges (
  kind text not null check (kind in ('tariff', 'subscription', 'fee')),
  role text not null check (role in ('grid', 'transmission', 'system', 'electricity_tax', 'other', 'subscription', 'fee')),
  applies_to text not null check (applies_to in ('consumption', 'production')),
  owner_gln text not null check (owner_gln ~ '^[0-9]{13}$'),
  owner text,
  name text not null,
  code text,
  source text not null check (source in ('meter', 'config')),
  prices_from text not null check (prices_from in ('DatahubPricelist', 'meter')),
  valid_from timestamp not null,
  valid_to timestamp,
  resolution text not null,
  prices numeric[] not null check (array_length(prices, 1) = case when kind = 'tariff' then 24 else 1 end),
  during tsrange generated always as (tsrange(valid_from, valid_to)) stored,
  primary key (kind, applies_to, owner_gln, name, valid_from),
  check (valid_to is null or valid_to > valid_from)
);
create index household_charges_during on power.household_charges using gist (during);

-- Energinet's charges are the same for every household: they carry over as the configured ones.
insert into power.household_charges
  (kind, role, applies_to, owner_gln, owner, name, code, source, prices_from, valid_from, valid_to, resolution, prices)
select 'tariff', charge, 'consumption', owner_gln, 'Energinet Systemansvar A/S (SYO)',
       case charge when 'transmission' then 'Transmissions nettarif' when 'system' then 'Systemtarif' else 'Elafgift' end,
       charge_type_code, 'config', 'DatahubPricelist', valid_from, valid_to, 'PT1H', dkk_per_kwh
  from power.charge_periods;

-- Tariffs other than the grid tariff and Energinet's three, summed per hour, DKK/kWh (0 without any).
alter table power.elprices add column other_tariffs_dkk_kwh numeric not null default 0;
alter table power.elprices drop column charges_sum_dkk_kwh;
alter table power.elprices
  add column charges_sum_dkk_kwh numeric generated always as (
    (price_dkk + tariff_dkk) * 0.001 + transmission_dkk_kwh + system_dkk_kwh + electricity_tax_dkk_kwh
      + other_tariffs_dkk_kwh
  ) stored;
