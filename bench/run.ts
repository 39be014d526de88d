import os from 'node:os';
import type { BenchRow } from './lib.js';
import { benchmarks } from './index.js';

/** Runs every benchmark (or those named on the command line) and prints one table. */
async function main() {
  const only = process.argv.slice(2);
  const rows: BenchRow[] = [];
  const skipped: string[] = [];
  for (const b of benchmarks) {
    if (only.length > 0 && !only.includes(b.name)) continue;
    const why = b.skipReason?.() ?? null;
    if (why) {
      skipped.push(`${b.name}: not run (${why})`);
      continue;
    }
    process.stderr.write(`running ${b.name}…\n`);
    rows.push(...(await b.run()));
  }
  const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toPrecision(3));
  console.log(
    `\nsatwatt benchmarks — ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}\n`,
  );
  console.log('| figure | value | baseline | baseline value | ratio | target |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${fmt(r.value)} ${r.unit} | ${r.baselineName} | ${fmt(r.baseline)} ${r.unit} | ${Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : 'n/a'} | ${r.target ?? ''}${r.note ? ` (${r.note})` : ''} |`,
    );
  }
  for (const s of skipped) console.log(`\n${s}`);
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
