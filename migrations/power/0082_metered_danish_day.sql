-- The Danish calendar day of each metered hour, kept by the database: the costs of a year group
-- thousands of hours by day, and converting each instant to Danish time at every read is what
-- such a read would spend most of its time on. timezone(text, timestamptz) is immutable.
alter table power.consumption
  add column date_dk date generated always as ((start_at at time zone 'Europe/Copenhagen')::date) stored;
alter table power.production
  add column date_dk date generated always as ((start_at at time zone 'Europe/Copenhagen')::date) stored;
alter table power.solar
  add column date_dk date generated always as ((start_at at time zone 'Europe/Copenhagen')::date) stored;
