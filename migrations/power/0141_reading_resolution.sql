-- Readings at the meter's own resolution: 60-minute hours, or 15-minute quarter hours (a PT15M
-- meter). A metered interval keeps the length of its readings, so costs price a quarter hour at
-- its own quarter's spot price and the tariffs of its hour.
alter table power.consumption add column resolution_minutes smallint not null default 60
  check (resolution_minutes in (15, 60));
alter table power.production add column resolution_minutes smallint not null default 60
  check (resolution_minutes in (15, 60));
alter table power.metered_hours add column minutes smallint not null default 60;

create or replace function power.refresh_metered_hours(hours timestamptz[]) returns void
language sql as $$
  delete from power.metered_hours where start_at = any (hours);
  insert into power.metered_hours (start_at, consumption_kwh, production_kwh, solar_kwh, minutes)
  select h.start_at, c.kwh, p.kwh, s.energy_kwh, least(coalesce(c.minutes, 60), coalesce(p.minutes, 60))
    from (select distinct unnest(hours) as start_at) h
    left join (select start_at, sum(quantity_kwh) as kwh, min(resolution_minutes) as minutes from power.consumption
                where start_at = any (hours) group by start_at) c using (start_at)
    left join (select start_at, sum(quantity_kwh) as kwh, min(resolution_minutes) as minutes from power.production
                where start_at = any (hours) group by start_at) p using (start_at)
    left join power.solar s using (start_at)
   where c.kwh is not null or p.kwh is not null or s.energy_kwh is not null;
$$;

create or replace function power.rebuild_metered_hours() returns void
language sql as $$
  delete from power.metered_hours;
  insert into power.metered_hours (start_at, consumption_kwh, production_kwh, solar_kwh, minutes)
  select start_at, sum(c), sum(p), sum(s), min(m)
    from (select start_at, quantity_kwh as c, null::numeric as p, null::numeric as s, resolution_minutes as m
            from power.consumption
          union all
          select start_at, null, quantity_kwh, null, resolution_minutes from power.production
          union all
          select start_at, null, null, energy_kwh, 60 from power.solar) u
   group by start_at;
$$;

create or replace function power.metered_hours_added() returns trigger
language plpgsql as $$
begin
  if tg_table_name = 'consumption' then
    insert into power.metered_hours as m (start_at, consumption_kwh, minutes)
    select start_at, sum(quantity_kwh), min(resolution_minutes) from added group by start_at
    on conflict (start_at) do update set consumption_kwh = coalesce(m.consumption_kwh, 0) + excluded.consumption_kwh,
                                         minutes = least(m.minutes, excluded.minutes);
  elsif tg_table_name = 'production' then
    insert into power.metered_hours as m (start_at, production_kwh, minutes)
    select start_at, sum(quantity_kwh), min(resolution_minutes) from added group by start_at
    on conflict (start_at) do update set production_kwh = coalesce(m.production_kwh, 0) + excluded.production_kwh,
                                         minutes = least(m.minutes, excluded.minutes);
  else
    insert into power.metered_hours as m (start_at, solar_kwh)
    select start_at, energy_kwh from added
    on conflict (start_at) do update set solar_kwh = excluded.solar_kwh;
  end if;
  return null;
end
$$;

-- The last Danish day the daily metering sync stored (one row).
create table power.metering_sync_state (
  id boolean primary key default true check (id),
  last_synced_day date not null,
  updated_at timestamptz not null default now()
);
