import { Type } from 'typebox';
import { CsvQuery } from '../../http/csv.js';
import { DAYS, Day } from '../../http/types.js';

export const SyncQuery = Type.Object({
  date: Type.Optional(Day(DAYS.metering, 'the Danish day to sync; defaults to today in Denmark')),
});

/** A month of DataHub's data, which begins in 2013 (DAYS.metering), up to 2099. */
export const MONTH_PATTERN = '^(201[3-9]|20[2-9]\\d)-(0[1-9]|1[0-2])$';

export const SyncMonthQuery = Type.Object({
  month: Type.String({
    pattern: MONTH_PATTERN,
    description: 'YYYY-MM from 2013-01 (DataHub began in 2013) to 2099-12; its past days are synced',
  }),
});

export const SyncResult = Type.Object({
  date: Type.String({ format: 'date' }),
  status: Type.Union([
    Type.Literal('no data to fetch'),
    Type.Literal('already synced'),
    Type.Literal('synced'),
  ]),
  production: Type.Integer({ description: 'production rows inserted by this sync' }),
  consumption: Type.Integer({ description: 'consumption rows inserted by this sync' }),
});

export const DayQuery = Type.Object({
  date: Type.Optional(Day(DAYS.metering, 'a Danish day; defaults to today in Denmark')),
  resolution: Type.Optional(
    Type.Union([Type.Literal('hour'), Type.Literal('quarter')], {
      description:
        "hour (default): each hour's readings summed; quarter: every reading at the meter's own resolution",
    }),
  ),
  ...CsvQuery,
});

export const EnergyRow = Type.Object({
  metering_point_id: Type.String(),
  time_dk: Type.String({ description: 'start of the interval, ISO 8601 with the Danish offset' }),
  resolution_minutes: Type.Integer({ description: '60 for an hour, 15 for a quarter hour' }),
  quantity_kwh: Type.Number(),
  quality: Type.Union([Type.String(), Type.Null()], {
    description: 'A04 measured, A03 estimated, A02 missing, A05 incomplete, A01 adjusted',
  }),
});

export const EnergyRows = Type.Array(EnergyRow);
