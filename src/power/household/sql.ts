import { sql, type RawBuilder } from 'kysely';

/**
 * The household's consumption tariffs in force at an instant, by its Danish wall-clock hour, per
 * role, DKK/kWh: `grid`, `transmission`, `system`, `electricity_tax` (null while no period of the
 * role covers the hour, never guessed) and `other` (0 without any). Both 02:00 hours of the
 * autumn change read the 02 price.
 */
export function householdTariffsAt(instant: RawBuilder<unknown>) {
  const local = sql`(${instant} at time zone 'Europe/Copenhagen')`;
  const part = (role: string) =>
    sql`sum(hc.prices[extract(hour from ${local})::int + 1]) filter (where hc.role = ${role})`;
  return sql`
    select ${part('grid')} as grid, ${part('transmission')} as transmission, ${part('system')} as system,
           ${part('electricity_tax')} as electricity_tax, coalesce(${part('other')}, 0) as other
      from power.household_charges hc
     where hc.kind = 'tariff' and hc.applies_to = 'consumption' and hc.during @> ${local}`;
}
