import type { Benchmark } from './lib.js';
import { healthBench } from './health.bench.js';
import { streamFanoutBench } from './stream-fanout.bench.js';

/** Every benchmark of the project, in the order the table shows them. */
export const benchmarks: Benchmark[] = [healthBench, streamFanoutBench];
