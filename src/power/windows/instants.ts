import { DateTime } from 'luxon';
import { DAYS, isDayIn } from '../../shared/days.js';
import { DANISH_ZONE, danishDate } from '../../shared/danish-time.js';
import { invalid } from '../../shared/refusal.js';

// Offsets are written ±HH:MM or Z; a `+` sent unencoded in a query arrives as a space, taken as `+`.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+\- ]\d{2}:\d{2})?$/;
const MINUTE_MS = 60_000;
/** Denmark's two offsets, summer first: the earlier instant of a repeated wall-clock time. */
const DANISH_OFFSETS = [120, 60];

/**
 * An ISO 8601 date-time of a query: with `Z` or an offset (±HH:MM, at most 14 hours) it is that
 * instant; without one it is Danish wall time. A wall time that occurs twice (the repeated hour
 * of the autumn change) is the earlier instant, the one with +02:00; a wall time that does not
 * occur (the skipped hour of the spring change) is refused. The instant's Danish day must lie
 * within the days prices exist for. Refusals name `field`.
 */
export function parseInstant(text: string, field: string): Date {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const m = DATE_TIME.exec(text);
  if (!m)
    throw invalid(
      `${field}: ${shown} is not an ISO 8601 date-time such as 2026-01-15T14:00, 2026-01-15T14:00:00+01:00 or 2026-01-15T13:00:00Z`,
    );
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const fields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: Math.floor(Number(`0.${frac ?? 0}`) * 1000),
  };
  const clock = fields.hour <= 23 && fields.minute <= 59 && fields.second <= 59;
  if (!clock || !DateTime.fromObject(fields, { zone: 'UTC' }).isValid)
    throw invalid(`${field}: ${shown} is not a real date and time of day`);
  const wall = Date.UTC(
    fields.year,
    fields.month - 1,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
    fields.millisecond,
  );
  let instant: number;
  if (zone === undefined) {
    const fits = DANISH_OFFSETS.map((o) => wall - o * MINUTE_MS).filter(
      (t) => DateTime.fromMillis(t, { zone: DANISH_ZONE }).offset === (wall - t) / MINUTE_MS,
    );
    if (fits.length === 0)
      throw invalid(
        `${field}: ${shown} does not exist in Danish time (the clocks skip from 02:00 to 03:00 that night); give 03:00 or an offset`,
      );
    instant = Math.min(...fits);
  } else if (zone === 'Z') instant = wall;
  else {
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 14 || minutes > 59 || (hours === 14 && minutes > 0))
      throw invalid(`${field}: ${shown} has the offset ${zone.trim()}, outside −14:00..+14:00`);
    const sign = zone[0] === '-' ? -1 : 1;
    instant = wall - sign * (hours * 60 + minutes) * MINUTE_MS;
  }
  const at = new Date(instant);
  if (!isDayIn(DAYS.prices, danishDate(at)))
    throw invalid(`${field}: ${shown} is not from ${DAYS.prices.min} to ${DAYS.prices.max} in Danish time`);
  return at;
}
