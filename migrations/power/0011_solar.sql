-- Hourly readings of the household's solar inverter, imported from CSV (import-solar).
-- Eight columns, all required; one row per hour, so a re-import skips what is stored.
create table power.solar (
  start_at timestamptz primary key,
  energy_kwh numeric(10, 3) not null check (energy_kwh >= 0),
  power_w numeric(9, 1) not null check (power_w >= 0),
  voltage_v numeric(6, 1) not null check (voltage_v >= 0),
  current_a numeric(7, 2) not null check (current_a >= 0),
  frequency_hz numeric(5, 2) not null check (frequency_hz = 0 or frequency_hz between 45 and 65),
  temperature_c numeric(4, 1) not null check (temperature_c between -50 and 120),
  total_yield_kwh numeric(12, 1) not null check (total_yield_kwh >= 0)
);
