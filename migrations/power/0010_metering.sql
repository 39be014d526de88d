-- Metering data from Eloverblik (DataHub). Every table is keyed so that a repeated or
-- concurrent sync skips what is stored (ON CONFLICT DO NOTHING) and keeps existing rows.

create table power.metering_points (
  metering_point_id text primary key check (metering_point_id ~ '^\d{18}$'),
  parent_id text references power.metering_points (metering_point_id),
  type_of_mp text not null,
  settlement_method text,
  reading_occurrence text,
  meter_number text,
  postcode text,
  city_name text,
  balance_supplier_name text,
  synced_at timestamptz not null default now()
);
create index metering_points_parent on power.metering_points (parent_id);

-- Every point of every time series, as sent: quantity in kWh, quality A01–A05.
create table power.meter_readings (
  metering_point_id text not null,
  start_at timestamptz not null,
  resolution text not null,
  business_type text not null,
  quantity_kwh numeric not null,
  quality text,
  primary key (metering_point_id, resolution, start_at)
);

-- Subscriptions, fees and tariffs of a metering point; prices in DKK excl. VAT.
create table power.charges (
  charge_id bigint generated always as identity primary key,
  metering_point_id text not null,
  kind text not null check (kind in ('subscription', 'fee', 'tariff')),
  name text not null,
  description text,
  owner_gln text not null,
  period_type text,
  quantity integer,
  valid_from timestamptz not null,
  valid_to timestamptz,
  unique (metering_point_id, kind, owner_gln, name, valid_from)
);

create table power.charge_prices (
  charge_id bigint not null references power.charges (charge_id) on delete cascade,
  position integer not null check (position >= 1),
  price_dkk numeric(14, 6) not null,
  primary key (charge_id, position)
);

-- Hourly energy delivered to the grid (D06 meter) and taken from it (D07 meter).
create table power.production (
  metering_point_id text not null,
  start_at timestamptz not null,
  quantity_kwh numeric not null,
  quality text,
  primary key (metering_point_id, start_at)
);
create index production_start on power.production (start_at);

create table power.consumption (
  metering_point_id text not null,
  start_at timestamptz not null,
  quantity_kwh numeric not null,
  quality text,
  primary key (metering_point_id, start_at)
);
create index consumption_start on power.consumption (start_at);
