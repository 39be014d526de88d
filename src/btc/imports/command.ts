import { Presets, SingleBar } from 'cli-progress';
import { readFile, stat } from 'node:fs/promises';
import type { CliCommand } from '../../context.js';
import { commandArgs } from '../../shared/args.js';
import { decodeUtf8, utf8Refusal } from '../../shared/utf8.js';
import { createRatesService } from '../rates/index.js';
import type { RatesService } from '../rates/service.js';
import { importServiceOf } from './index.js';
import { SOURCES, type Source } from './movements.js';
import { ImportOptionRefused, ImportRefused } from './service.js';

export interface ImportLedgerOptions {
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** The rates to convert with (tests pass fake ones); by default the rates service of the context. */
  rates?: RatesService;
}

/** Files from this size on show a progress bar; smaller ones are done before it would draw. */
const LARGE = 256 * 1024;
/** What the bar says the import is doing. */
const PHASES = { read: 'reading', rates: "fetching the days' currency rates", write: 'writing' } as const;
/** Skipped lines listed at most; the count says how many there were. */
const LISTED = 20;

const USAGE =
  'import-ledger FILE --source kraken|csv [--exchange ID] [--to-wallet ID] [--dry-run]  import an exchange export into the ledger, all or nothing';

/** `import-ledger`: POST /api/imports from the command line, for files of any size. */
export function importLedgerCommand(opts: ImportLedgerOptions = {}): CliCommand {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    name: 'import-ledger',
    usage: USAGE,
    async run(args, ctx) {
      const parsed = argsOf(args);
      if (typeof parsed === 'string') {
        err(`import-ledger: ${parsed}\nusage: ${USAGE}`);
        return 2;
      }
      const { file, ...options } = parsed;
      const found = await stat(file).catch(() => null);
      if (!found?.isFile()) {
        err(`import-ledger: ${file} is not a file`);
        return 2;
      }
      const bar = new SingleBar(
        { format: `${file} {phase} {bar} {percentage}%`, stream: process.stderr },
        Presets.shades_classic,
      );
      const large = found.size >= LARGE;
      if (large) bar.start(1, 0, { phase: 'reading' });
      const service = importServiceOf(ctx, opts.rates ?? createRatesService(ctx));
      try {
        const bytes = await readFile(file);
        const notUtf8 = utf8Refusal(bytes, { lines: true });
        if (notUtf8) {
          bar.stop();
          err(`${file}: ${notUtf8}; nothing imported`);
          return 1;
        }
        const text = decodeUtf8(bytes);
        const r = await service.importLedger(text, options, {
          onProgress: (phase, done, total) => {
            if (!large) return;
            bar.setTotal(Math.max(total, 1));
            bar.update(done, { phase: PHASES[phase] });
          },
        });
        bar.stop();
        const events = r.events.length;
        const lots = r.lots.length;
        const verb = r.dry_run ? 'dry run: would create' : 'created';
        out(
          `${file}: ${verb} ${events} event${events === 1 ? '' : 's'} and ${lots} lot${lots === 1 ? '' : 's'}; ${r.duplicates} already stored; ${r.skipped.length} line${r.skipped.length === 1 ? '' : 's'} skipped`,
        );
        for (const s of r.skipped.slice(0, LISTED)) out(`${file}:${s.line}: skipped: ${s.reason}`);
        if (r.skipped.length > LISTED) out(`${file}: … and ${r.skipped.length - LISTED} more skipped lines`);
        return 0;
      } catch (e) {
        bar.stop();
        if (e instanceof ImportOptionRefused) {
          err(`import-ledger: --${e.option.replace('_', '-')}: ${e.reason}`);
          return 2;
        }
        if (!(e instanceof ImportRefused)) {
          err(`${file}: ${e instanceof Error ? e.message : String(e)}`);
          return 1;
        }
        for (const p of e.problems) err(`${file}:${p.line}: ${p.reason}`);
        err(`${file}: nothing imported (${e.problems.length} problem${e.problems.length === 1 ? '' : 's'})`);
        return 1;
      }
    },
  };
}

type Parsed = { file: string; source: Source; exchange?: number; to_wallet?: number; dry_run: boolean };

function argsOf(args: string[]): Parsed | string {
  const parsed = commandArgs(args, {
    source: { type: 'string' },
    exchange: { type: 'string' },
    'to-wallet': { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  if (typeof parsed === 'string') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return 'name one file';
  const source = values.source as Source;
  if (!SOURCES.includes(source)) return `--source must be one of ${SOURCES.join(', ')}`;
  const id = (name: string, v: string | undefined): number | string | undefined => {
    if (v === undefined) return undefined;
    return /^[1-9]\d{0,9}$/.test(v) && Number(v) <= 2 ** 31 - 1
      ? Number(v)
      : `${name} must be a wallet id, not "${v}"`;
  };
  const exchange = id('--exchange', values.exchange);
  const to_wallet = id('--to-wallet', values['to-wallet']);
  if (typeof exchange === 'string') return exchange;
  if (typeof to_wallet === 'string') return to_wallet;
  return { file: positionals[0]!, source, exchange, to_wallet, dry_run: values['dry-run'] === true };
}
