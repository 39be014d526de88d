-- Each metered hour with its consumption (every point's, summed), production to the grid and
-- solar energy, kept by the database as readings arrive: the costs of a year then read 8,760 rows
-- instead of merging three tables hour by hour on every request (docs/benchmarks.md, costs).
-- New readings are added in one statement per insert; a changed or removed reading has its hours
-- recomputed from the readings, and a truncated table all of them.
create table power.metered_hours (
  start_at timestamptz primary key,
  date_dk date generated always as ((start_at at time zone 'Europe/Copenhagen')::date) stored,
  consumption_kwh numeric,
  production_kwh numeric,
  solar_kwh numeric
);

create function power.refresh_metered_hours(hours timestamptz[]) returns void
language sql as $$
  delete from power.metered_hours where start_at = any (hours);
  insert into power.metered_hours (start_at, consumption_kwh, production_kwh, solar_kwh)
  select h.start_at, c.kwh, p.kwh, s.energy_kwh
    from (select distinct unnest(hours) as start_at) h
    left join (select start_at, sum(quantity_kwh) as kwh from power.consumption
                where start_at = any (hours) group by start_at) c using (start_at)
    left join (select start_at, sum(quantity_kwh) as kwh from power.production
                where start_at = any (hours) group by start_at) p using (start_at)
    left join power.solar s using (start_at)
   where c.kwh is not null or p.kwh is not null or s.energy_kwh is not null;
$$;

create function power.rebuild_metered_hours() returns void
language sql as $$
  delete from power.metered_hours;
  insert into power.metered_hours (start_at, consumption_kwh, production_kwh, solar_kwh)
  select start_at, sum(c), sum(p), sum(s)
    from (select start_at, quantity_kwh as c, null::numeric as p, null::numeric as s from power.consumption
          union all
          select start_at, null, quantity_kwh, null from power.production
          union all
          select start_at, null, null, energy_kwh from power.solar) u
   group by start_at;
$$;

create function power.metered_hours_added() returns trigger
language plpgsql as $$
begin
  if tg_table_name = 'consumption' then
    insert into power.metered_hours as m (start_at, consumption_kwh)
    select start_at, sum(quantity_kwh) from added group by start_at
    on conflict (start_at) do update set consumption_kwh = coalesce(m.consumption_kwh, 0) + excluded.consumption_kwh;
  elsif tg_table_name = 'production' then
    insert into power.metered_hours as m (start_at, production_kwh)
    select start_at, sum(quantity_kwh) from added group by start_at
    on conflict (start_at) do update set production_kwh = coalesce(m.production_kwh, 0) + excluded.production_kwh;
  else
    insert into power.metered_hours as m (start_at, solar_kwh)
    select start_at, energy_kwh from added
    on conflict (start_at) do update set solar_kwh = excluded.solar_kwh;
  end if;
  return null;
end
$$;

create function power.metered_hours_changed() returns trigger
language plpgsql as $$
begin
  perform power.refresh_metered_hours(array(select start_at from gone union select start_at from added));
  return null;
end
$$;

create function power.metered_hours_removed() returns trigger
language plpgsql as $$
begin
  perform power.refresh_metered_hours(array(select start_at from gone));
  return null;
end
$$;

create function power.metered_hours_truncated() returns trigger
language plpgsql as $$
begin
  perform power.rebuild_metered_hours();
  return null;
end
$$;

create trigger metered_hours_added after insert on power.consumption
  referencing new table as added for each statement execute function power.metered_hours_added();
create trigger metered_hours_added after insert on power.production
  referencing new table as added for each statement execute function power.metered_hours_added();
create trigger metered_hours_added after insert on power.solar
  referencing new table as added for each statement execute function power.metered_hours_added();

create trigger metered_hours_changed after update on power.consumption
  referencing old table as gone new table as added for each statement execute function power.metered_hours_changed();
create trigger metered_hours_changed after update on power.production
  referencing old table as gone new table as added for each statement execute function power.metered_hours_changed();
create trigger metered_hours_changed after update on power.solar
  referencing old table as gone new table as added for each statement execute function power.metered_hours_changed();

create trigger metered_hours_removed after delete on power.consumption
  referencing old table as gone for each statement execute function power.metered_hours_removed();
create trigger metered_hours_removed after delete on power.production
  referencing old table as gone for each statement execute function power.metered_hours_removed();
create trigger metered_hours_removed after delete on power.solar
  referencing old table as gone for each statement execute function power.metered_hours_removed();

create trigger metered_hours_truncated after truncate on power.consumption
  for each statement execute function power.metered_hours_truncated();
create trigger metered_hours_truncated after truncate on power.production
  for each statement execute function power.metered_hours_truncated();
create trigger metered_hours_truncated after truncate on power.solar
  for each statement execute function power.metered_hours_truncated();

select power.rebuild_metered_hours();
analyze power.metered_hours;
