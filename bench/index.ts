import type { Benchmark } from './lib.js';
import { healthBench } from './health.bench.js';
import { ledgerBench } from './ledger.bench.js';
import { ledgerPgliteBench } from './ledger-pglite.bench.js';
import { ledgerImportBench } from './ledger-import.bench.js';
import { importRatesBench } from './import-rates.bench.js';
import { portfolioBench } from './portfolio.bench.js';
import { streamFanoutBench } from './stream-fanout.bench.js';
import { mqttFanoutBench } from './mqtt-fanout.bench.js';
import { elpriceBench } from './elprice.bench.js';
import { solarImportBench } from './solar-import.bench.js';
import { costsBench } from './costs.bench.js';
import { cheapestBench } from './cheapest.bench.js';
import { backupBench } from './backup.bench.js';
import { billBench } from './bill.bench.js';
import { chainBench } from './chain.bench.js';
import { haStatsBench } from './ha-stats.bench.js';
import { taxBench } from './tax.bench.js';

/** Every benchmark of the project, in the order the table shows them. */
export const benchmarks: Benchmark[] = [
  healthBench,
  ledgerBench,
  ledgerPgliteBench,
  ledgerImportBench,
  importRatesBench,
  portfolioBench,
  taxBench,
  streamFanoutBench,
  mqttFanoutBench,
  elpriceBench,
  solarImportBench,
  costsBench,
  cheapestBench,
  backupBench,
  billBench,
  chainBench,
  haStatsBench,
];
