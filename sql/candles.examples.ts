import * as repository from '../src/btc/candles/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const candle = {
  pair: 'BTC/EUR',
  time: new Date('2026-07-03T10:00:00Z'),
  open: '58000.1',
  high: '58100',
  low: '57900.5',
  close: '58050',
  vwap: '58010.2',
  volume: '12.5',
  trades: 321,
};

const examples: QueryExamples<typeof repository> = {
  upsertCandles: [['btc.candles_minute', [candle]]],
  insertClosedCandles: [['btc.candles_hour', [candle]]],
  lastCandle: [['btc.candles_day', 'BTC/USD']],
  latestCandles: [['btc.candles_hour', 'BTC/USD', 24]],
  pruneMinuteCandles: [[new Date('2026-06-20T12:34:00Z'), 1000]],
  dailyCloses: [[new Date('2026-07-01T00:00:00Z')]],
};

export default {
  name: 'candles',
  modules: [{ path: 'src/btc/candles/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
