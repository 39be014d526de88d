-- Day-ahead prices. Rows are keyed on the UTC instant their period starts (time_dk is a
-- timestamptz: an instant, shown with the Danish offset), so the two 02:00 hours of the autumn
-- change are distinct keys.
create table power.prices (
  time_dk timestamptz not null,
  price_area text not null check (price_area in ('DK1', 'DK2')),
  -- 15 from 2025-10-01 (DayAheadPrices), 60 before (Elspotprices)
  resolution_minutes smallint not null check (resolution_minutes in (15, 60)),
  price_dkk numeric not null,
  price_eur numeric,
  fetched_at timestamptz not null default now(),
  primary key (time_dk, price_area)
);

-- One row per hour and area, derived from complete hours of power.prices.
create table power.elprices (
  time_dk timestamptz not null,
  price_area text not null check (price_area in ('DK1', 'DK2')),
  price_dkk numeric not null,
  primary key (time_dk, price_area)
);
