/**
 * The schema of `recorder/import_statistics` and the checks of recorder/statistics.py, as Home
 * Assistant's core writes them (voluptuous there; its error texts here), for the fake Home Assistant.
 */
/** Units of the unit classes a client may name (a subset of util/unit_conversion.py). */
export const UNIT_CLASSES: Record<string, string[]> = {
  energy: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
  power: ['mW', 'W', 'kW', 'MW', 'GW', 'TW', 'BTU/h'],
  volume: ['L', 'mL', 'm³', 'ft³', 'CCF', 'gal', 'fl. oz.'],
};

/** A message outside the schema: `invalid_format`. */
export class Invalid extends Error {}
/** What statistics.py refuses: `home_assistant_error`. */
export class HomeAssistantError extends Error {}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const at = (path: string[]) => `data${path.map((p) => `[${/^\d+$/.test(p) ? p : `'${p}'`}]`).join('')}`;
const got = (v: unknown) => (v === undefined ? 'None' : JSON.stringify(v));

type Check = (v: unknown, path: string[]) => void;

const str: Check = (v, path) => {
  if (typeof v !== 'string') throw new Invalid(`expected str @ ${at(path)}. Got ${got(v)}`);
};
const strOrNone: Check = (v, path) => {
  if (v !== null && typeof v !== 'string') throw new Invalid(`expected str @ ${at(path)}. Got ${got(v)}`);
};
const bool: Check = (v, path) => {
  if (typeof v !== 'boolean') throw new Invalid(`expected bool @ ${at(path)}. Got ${got(v)}`);
};
// vol.Any(float, int): Python's bool is an int, so true and false pass as HA takes them
const number: Check = (v, path) => {
  if (typeof v !== 'number' && typeof v !== 'boolean')
    throw new Invalid(`expected float @ ${at(path)}. Got ${got(v)}`);
};
const meanType: Check = (v, path) => {
  if (v !== 0 && v !== 1 && v !== 2 && v !== true && v !== false)
    throw new Invalid(`value must be one of [0, 1, 2] @ ${at(path)}. Got ${got(v)}`);
};
/** cv.datetime: text dt_util.parse_datetime reads (ISO 8601), with or without an offset. */
const datetime: Check = (v, path) => {
  if (typeof v !== 'string' || parseIso(v) === null)
    throw new Invalid(`Invalid datetime specified: ${String(v)} @ ${at(path)}. Got ${got(v)}`);
};

function object(fields: Record<string, { required: boolean; check: Check }>): Check {
  return (v, path) => {
    if (!isObject(v)) throw new Invalid(`expected a dictionary @ ${at(path)}. Got ${got(v)}`);
    for (const key of Object.keys(v))
      if (!(key in fields))
        throw new Invalid(`extra keys not allowed @ ${at([...path, key])}. Got ${got(v[key])}`);
    for (const [key, f] of Object.entries(fields)) {
      if (!(key in v)) {
        if (f.required) throw new Invalid(`required key not provided @ ${at([...path, key])}. Got None`);
        continue;
      }
      f.check(v[key], [...path, key]);
    }
  };
}
const list =
  (item: Check): Check =>
  (v, path) => {
    if (!Array.isArray(v)) throw new Invalid(`expected list @ ${at(path)}. Got ${got(v)}`);
    v.forEach((x, i) => item(x, [...path, String(i)]));
  };

const required = (check: Check) => ({ required: true, check });
const optional = (check: Check) => ({ required: false, check });

export function importSchema(strict: boolean): Check {
  return object({
    id: required(() => {}),
    type: required(str),
    metadata: required(
      object({
        has_mean: optional(bool),
        mean_type: strict ? required(meanType) : optional(meanType),
        has_sum: required(bool),
        name: required(strOrNone),
        source: required(str),
        statistic_id: required(str),
        unit_class: strict ? required(strOrNone) : optional(strOrNone),
        unit_of_measurement: required(strOrNone),
      }),
    ),
    stats: required(
      list(
        object({
          start: required(datetime),
          mean: optional(number),
          min: optional(number),
          max: optional(number),
          last_reset: optional((v, p) => (v === null ? undefined : datetime(v, p))),
          state: optional(number),
          sum: optional(number),
        }),
      ),
    ),
  });
}

/** The parts of an ISO 8601 date-time, or null; `offsetMin` null for a naive one. */
export function parseIso(
  text: string,
): { utcMs: number; minute: number; second: number; micro: number; naive: boolean } | null {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
      text,
    );
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(local) || Number(mo) > 12 || Number(h) > 23 || Number(mi) > 59) return null;
  let offsetMin = 0;
  if (zone && zone !== 'Z') {
    const z = zone.replace(':', '');
    offsetMin = (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5)));
  }
  return {
    utcMs: local - offsetMin * 60_000,
    minute: Number(mi),
    second: Number(s),
    micro: Number(frac.padEnd(6, '0')),
    naive: zone === undefined,
  };
}

export const ENTITY_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_)\.(?!_)[\da-z_]+(?<!_)$/;
export const STATISTIC_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_):(?!_)[\da-z_]+(?<!_)$/;
