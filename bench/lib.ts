import { loadConfig, type Config } from '../src/config.js';
import { FEEDS_OFF } from '../test/support/process.js';
import autocannon from 'autocannon';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** One line of the benchmark table: a figure beside its baseline measured in the same run. */
export interface BenchRow {
  name: string;
  unit: string;
  value: number;
  baselineName: string;
  baseline: number;
  /** value / baseline */
  ratio: number;
  target?: string;
  note?: string;
}

export interface Benchmark {
  name: string;
  /** Whether it can run here (e.g. needs a PostgreSQL server); a reason when not. */
  skipReason?: () => string | null;
  run(): Promise<BenchRow[]>;
}

export interface HttpFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function cannon(url: string, durationS: number, connections: number): Promise<HttpFigures> {
  const r = await autocannon({ url, duration: durationS, connections, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/**
 * Load on two URLs in alternating rounds (A, B, B, A, …) so that the machine's noise falls on
 * both alike; figures are the means over rounds.
 */
export async function compareHttp(opts: {
  subject: string;
  baseline: string;
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
}): Promise<{ subject: HttpFigures; baseline: HttpFigures }> {
  const rounds = opts.rounds ?? 4;
  const seconds = opts.secondsPerRound ?? 3;
  const connections = opts.connections ?? 10;
  await cannon(opts.subject, 1, connections);
  await cannon(opts.baseline, 1, connections);
  const a: HttpFigures[] = [];
  const b: HttpFigures[] = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['s', 'b'] : ['b', 's'];
    for (const which of order) {
      if (which === 's') a.push(await cannon(opts.subject, seconds, connections));
      else b.push(await cannon(opts.baseline, seconds, connections));
    }
  }
  return { subject: mean(a), baseline: mean(b) };
}

function mean(xs: HttpFigures[]): HttpFigures {
  const avg = (k: keyof HttpFigures) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
  return { rps: avg('rps'), p50: avg('p50'), p99: avg('p99'), errors: xs.reduce((s, x) => s + x.errors, 0) };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function eventLoopMonitor() {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    stop: () => {
      h.disable();
      return { p50Ms: h.percentile(50) / 1e6, p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 };
    },
  };
}

export function row(r: Omit<BenchRow, 'ratio'>): BenchRow {
  return { ...r, ratio: r.value / r.baseline };
}

/**
 * The service's configuration for a benchmark: feeds off unless asked, quiet logs, and no write
 * rate limit (a benchmark writes in bursts on purpose; the limit has its own test).
 */
export function benchConfig(env: Record<string, string> = {}): Config {
  return loadConfig(
    {
      ...FEEDS_OFF,
      WRITE_RATE_LIMIT: '1000000',
      LOG_LEVEL: 'silent',
      PORT: '0',
      ...env,
    },
    '/nonexistent',
  );
}
