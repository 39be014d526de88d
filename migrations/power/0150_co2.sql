-- The CO₂ intensity of the electricity used in each price area, g/kWh, per 5 minutes, from Energi
-- Data Service: CO2EmisProg (the prognosis, issued every 15 minutes) and CO2Emis (realized).
--
-- A prognosis is kept as it was issued, so that it can be scored against the realized values
-- later: a row is one value of the prognosis as it stood when it was fetched (`issued_at`, the
-- fetch's time). A fetch stores only the instants whose value differs from the latest stored
-- issue, so the prognosis as it stood at a time T is, for each instant, its row with the latest
-- issued_at <= T.
create table power.co2_forecasts (
  price_area text not null check (price_area in ('DK1', 'DK2')),
  time_utc timestamptz not null,
  issued_at timestamptz not null,
  g_kwh numeric not null check (g_kwh >= 0 and g_kwh <= 2000),
  primary key (price_area, time_utc, issued_at)
);

-- The realized values; a value the provider corrects later replaces the stored one.
create table power.co2_realized (
  price_area text not null check (price_area in ('DK1', 'DK2')),
  time_utc timestamptz not null,
  g_kwh numeric not null check (g_kwh >= 0 and g_kwh <= 2000),
  fetched_at timestamptz not null,
  primary key (price_area, time_utc)
);
