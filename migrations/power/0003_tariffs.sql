-- Time-of-use grid tariffs as data. valid_from/valid_to are Danish wall-clock times (as
-- DatahubPricelist publishes them), [valid_from, valid_to); valid_to null = open-ended.
-- ore_per_kwh[1] is 00:00-01:00 local, ..., [24] is 23:00-24:00, in øre/kWh excl. VAT.
create table power.tariff_periods (
  grid_company_gln text not null check (grid_company_gln ~ '^[0-9]{13}$'),
  charge_type_code text not null,
  valid_from timestamp not null,
  valid_to timestamp,
  ore_per_kwh numeric[] not null check (array_length(ore_per_kwh, 1) = 24),
  source text not null,
  updated_at timestamptz not null default now(),
  primary key (grid_company_gln, valid_from),
  check (valid_to is null or valid_to > valid_from)
);

-- Seed: Radius Elnet A/S (GLN 5790000705689), C-customer tariff DT_C_01, Tarifmodel 3.0
-- (lavlast 00-06, højlast 06-17 and 21-24, spidslast 17-21). Source: Radius Elnet's published
-- prices (https://radiuselnet.dk/elnetkunder/tariffer-og-netabonnement/) as read from Energi
-- Data Service's DatahubPricelist (docs/providers.md; DKK/kWh there, øre/kWh
-- here). Earlier periods come from the DatahubPricelist refresh at start, which the service
-- runs for GRID_COMPANY_GLN.
insert into power.tariff_periods (grid_company_gln, charge_type_code, valid_from, valid_to, ore_per_kwh, source)
values
  ('5790000705689', 'DT_C_01', '2025-10-01 00:00:00', '2026-04-01 00:00:00', array[9.76, 9.76, 9.76, 9.76, 9.76, 9.76, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 29.29, 87.88, 87.88, 87.88, 87.88, 29.29, 29.29, 29.29]::numeric[], 'seed'),
  ('5790000705689', 'DT_C_01', '2026-04-01 00:00:00', '2026-10-01 00:00:00', array[10.62, 10.62, 10.62, 10.62, 10.62, 10.62, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 15.93, 41.41, 41.41, 41.41, 41.41, 15.93, 15.93, 15.93]::numeric[], 'seed'),
  ('5790000705689', 'DT_C_01', '2026-10-01 00:00:00', '2027-04-01 00:00:00', array[10.62, 10.62, 10.62, 10.62, 10.62, 10.62, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 31.85, 95.56, 95.56, 95.56, 95.56, 31.85, 31.85, 31.85]::numeric[], 'seed');

alter table power.elprices add column tariff_dkk numeric, add column total_dkk numeric;

-- Rows stored before tariffs existed get the default grid company's tariff of their
-- wall-clock hour (both 02:00 hours of an autumn change day read hour 2).
update power.elprices e
set tariff_dkk = t.tariff_dkk, total_dkk = e.price_dkk + t.tariff_dkk
from (
  select e2.time_dk, e2.price_area,
         (select tp.ore_per_kwh[extract(hour from e2.time_dk at time zone 'Europe/Copenhagen')::int + 1] * 10
            from power.tariff_periods tp
           where tp.grid_company_gln = '5790000705689'
             and tp.valid_from <= e2.time_dk at time zone 'Europe/Copenhagen'
             and (tp.valid_to is null or e2.time_dk at time zone 'Europe/Copenhagen' < tp.valid_to)
           order by tp.valid_from desc
           limit 1) as tariff_dkk
    from power.elprices e2
) t
where t.time_dk = e.time_dk and t.price_area = e.price_area and t.tariff_dkk is not null;
