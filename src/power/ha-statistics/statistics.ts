import { Big } from 'big.js';

/** The `source` of every statistic: Home Assistant refuses an external one whose id's domain differs. */
export const SOURCE = 'satwatt';

export type StatisticKey = 'consumption' | 'production' | 'cost' | 'value';

export interface Statistic {
  key: StatisticKey;
  /** `source:object_id`, as Home Assistant names an external statistic */
  id: string;
  name: string;
  unit: 'kWh' | 'DKK';
  /** Home Assistant's unit conversion class: energy for kWh, none for a currency */
  unitClass: 'energy' | null;
}

export const STATISTICS: readonly Statistic[] = [
  {
    key: 'consumption',
    id: `${SOURCE}:grid_consumption`,
    name: 'Grid consumption (satwatt)',
    unit: 'kWh',
    unitClass: 'energy',
  },
  {
    key: 'production',
    id: `${SOURCE}:grid_production`,
    name: 'Grid production (satwatt)',
    unit: 'kWh',
    unitClass: 'energy',
  },
  {
    key: 'cost',
    id: `${SOURCE}:grid_consumption_cost`,
    name: 'Grid consumption cost (satwatt)',
    unit: 'DKK',
    unitClass: null,
  },
  {
    key: 'value',
    id: `${SOURCE}:grid_production_value`,
    name: 'Grid production value (satwatt)',
    unit: 'DKK',
    unitClass: null,
  },
];

export const statisticOf = (id: string): Statistic | undefined => STATISTICS.find((s) => s.id === id);

/** One hour to write: its state (the hour's kWh or DKK) and the running sum through it, exact. */
export interface HourRow {
  start: Date;
  state: string;
  sum: string;
}

/**
 * Running sums from the one before the first row (`sumBefore`, 0 for a statistic's first hour),
 * added exactly: the sum Home Assistant shows after a year is the sum of the hours' exact values.
 */
export function withSums(sumBefore: string, hours: { start: Date; state: string }[]): HourRow[] {
  let sum = new Big(sumBefore);
  return hours.map((h) => {
    sum = sum.plus(h.state);
    return { start: h.start, state: h.state, sum: sum.toString() };
  });
}

/** Home Assistant's `StatisticMeanType.NONE`: the hours carry a sum, no mean. */
const MEAN_TYPE_NONE = 0;

/**
 * The body of one `recorder/import_statistics` command (the connection adds `id`): the metadata
 * as Home Assistant's current schema asks for it (`mean_type` and `unit_class`, required from
 * 2026.11, and no `has_mean`, which it has deprecated) and each hour with its UTC start, state and
 * sum as JSON numbers.
 */
export function importCommand(statistic: Statistic, rows: HourRow[]) {
  return {
    type: 'recorder/import_statistics',
    metadata: {
      has_sum: true,
      mean_type: MEAN_TYPE_NONE,
      name: statistic.name,
      source: SOURCE,
      statistic_id: statistic.id,
      unit_class: statistic.unitClass,
      unit_of_measurement: statistic.unit,
    },
    stats: rows.map((r) => ({ start: utcHour(r.start), state: Number(r.state), sum: Number(r.sum) })),
  };
}

/** An hour's start as Home Assistant writes its own: `2026-10-25T01:00:00+00:00`. */
export const utcHour = (start: Date) => `${start.toISOString().slice(0, 19)}+00:00`;

/** Rows in batches of at most `size`, in order. */
export function batches<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
