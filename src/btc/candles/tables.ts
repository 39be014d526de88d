import type { Generated } from 'kysely';

export interface CandleTable {
  pair: string;
  time: Date;
  /** numeric: strings in and out. */
  open: string;
  high: string;
  low: string;
  close: string;
  vwap: string;
  volume: string;
  trades: number;
  updated_at: Generated<Date>;
}

export interface CandleTables {
  'btc.candles_minute': CandleTable;
  'btc.candles_hour': CandleTable;
  'btc.candles_day': CandleTable;
}

export type CandleTableName = keyof CandleTables;
