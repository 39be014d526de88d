import { Type } from 'typebox';
import { DAYS, Day } from '../../http/types.js';

export const SolarQuery = Type.Object({
  date: Type.Optional(Day(DAYS.solar, 'a Danish day; defaults to today')),
});

export const SolarReading = Type.Object({
  time_dk: Type.String({ description: 'start of the hour, ISO 8601 with the Danish offset' }),
  energy_kwh: Type.Number({ description: 'energy produced in the hour' }),
  power_w: Type.Number({ description: 'mean AC output power over the hour' }),
  voltage_v: Type.Number({ description: 'mean AC grid voltage' }),
  current_a: Type.Number({ description: 'mean AC output current' }),
  frequency_hz: Type.Number({ description: 'mean grid frequency; 0 while the inverter sleeps' }),
  temperature_c: Type.Number({ description: 'inverter temperature' }),
  total_yield_kwh: Type.Number({
    description: 'lifetime energy counter of the inverter at the end of the hour',
  }),
});

export const SolarReadings = Type.Array(SolarReading);

export const ImportQuery = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: 'the file name as the user gave it, for the lines the import prints',
    }),
  },
  { additionalProperties: false },
);
