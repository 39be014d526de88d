import type { Benchmark } from './lib.js';
import { elpriceBench } from './elprice.bench.js';
import { healthBench } from './health.bench.js';

/** Every benchmark of the project, in the order the table shows them. */
export const benchmarks: Benchmark[] = [healthBench, elpriceBench];
