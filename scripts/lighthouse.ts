import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  LIGHTHOUSE_TARGETS,
  describeRun,
  lighthouseRuns,
  meetsTargets,
  type LighthouseRun,
} from '../test/support/lighthouse.js';
import { servePricePage } from '../test/support/price-page.js';

/**
 * `npm run lighthouse`: Lighthouse 12 on the home page, on its default emulated phone, with
 * Debian's Chromium. Without --url it serves the page itself with fixed data (the fake Energi Data
 * Service's prices and charges, the app's clock at the real time, so the current hour is marked).
 * Up to --runs runs (3), stopping at the first that meets the targets unless --all; exits 1 when
 * none does. --out DIR keeps each run's JSON report.
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    runs: { type: 'string', default: '3' },
    all: { type: 'boolean', default: false },
    out: { type: 'string' },
    chrome: { type: 'string', default: '/usr/bin/chromium' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);

const served = values.url ? null : await servePricePage(new Date().toISOString());
const url = values.url ?? served!.url;
console.log(
  `lighthouse: ${url} (targets: performance ≥ ${LIGHTHOUSE_TARGETS.performance}, accessibility ≥ ${LIGHTHOUSE_TARGETS.accessibility}, best practices ≥ ${LIGHTHOUSE_TARGETS.bestPractices})`,
);
let results: LighthouseRun[];
try {
  let n = 0;
  results = await lighthouseRuns(url, {
    runs,
    all: values.all,
    keepReport: values.out !== undefined,
    chromePath: values.chrome,
    onRun: (run) => console.log(`run ${++n}: ${describeRun(run)}`),
  });
} finally {
  await served?.close();
}
if (values.out)
  for (const [i, run] of results.entries())
    await writeFile(path.join(values.out, `lighthouse-${i + 1}.json`), run.report ?? '');
const scores = (key: 'performance' | 'accessibility' | 'bestPractices') =>
  results.flatMap((r) => (r[key] === null ? [] : [r[key]])).sort((a, b) => a - b);
const median = (xs: number[]) => xs[Math.floor((xs.length - 1) / 2)] ?? NaN;
if (results.length > 1)
  console.log(
    `median of ${results.length}: performance ${median(scores('performance'))}, accessibility ${median(scores('accessibility'))}, best practices ${median(scores('bestPractices'))}`,
  );
if (!results.some(meetsTargets)) {
  console.error('lighthouse: no run met the targets');
  process.exit(1);
}
