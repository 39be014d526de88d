-- The consumer price of each stored hour before the supplier's markup and VAT, DKK/kWh: spot and
-- grid tariff (stored in DKK/MWh) plus Energinet's three charges; null while a part is missing.
-- Kept by the database, so the costs of a year read it instead of adding it up hour by hour.
alter table power.elprices
  add column charges_sum_dkk_kwh numeric generated always as (
    (price_dkk + tariff_dkk) * 0.001 + transmission_dkk_kwh + system_dkk_kwh + electricity_tax_dkk_kwh
  ) stored;
