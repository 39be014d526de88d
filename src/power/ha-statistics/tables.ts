import type { Generated } from 'kysely';

/** An hour of a statistic as Home Assistant holds it since satwatt wrote it (migration 0160). */
export interface HaStatisticsTable {
  statistic_id: string;
  /** the hour's start, UTC, whole */
  start_at: Date;
  /** numeric: exact decimal text */
  state: string;
  /** numeric: the running sum from the statistic's first hour through this one */
  sum: string;
  written_at: Generated<Date>;
}

export interface HaStatisticsTables {
  'power.ha_statistics': HaStatisticsTable;
}
