-- What satwatt has written to Home Assistant as long-term external statistics: per statistic
-- (satwatt:grid_consumption, …) and UTC hour, the hour's state and the running sum that Home
-- Assistant holds for it. A restart goes on from the last hour's sum, and an hour whose value is
-- no longer what the readings, prices and charges give now is written again, with every later one.
create table power.ha_statistics (
  statistic_id text not null,
  start_at timestamptz not null check (extract(epoch from start_at) % 3600 = 0),
  state numeric not null,
  sum numeric not null,
  written_at timestamptz not null default now(),
  primary key (statistic_id, start_at)
);
