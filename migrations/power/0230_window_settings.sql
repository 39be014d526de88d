-- The windows Home Assistant sets through its MQTT number entities: per kind (cheapest, greenest)
-- the window's length and the Danish hour it must end by. Kept here, not as retained messages
-- only, so that a restart of satwatt, a broker that lost its retained messages, or another
-- process taking over the publisher finds what was set last.
create table power.window_settings (
  kind text primary key check (kind in ('cheapest', 'greenest')),
  minutes integer not null check (minutes between 15 and 720 and minutes % 15 = 0),
  end_hour integer not null check (end_hour between 0 and 23),
  updated_at timestamptz not null
);
