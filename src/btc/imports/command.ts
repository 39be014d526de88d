import { readFile, stat } from 'node:fs/promises';
import type { CliCommand } from '../../context.js';
import type { RunningService } from '../../remote/client.js';
import { commandArgs } from '../../shared/args.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import { decodeUtf8, utf8Fault } from '../../shared/utf8.js';
import { createRatesService } from '../rates/index.js';
import type { RatesService } from '../rates/service.js';
import { importServiceOf } from './index.js';
import { SOURCES, type Source } from './movements.js';
import { ImportOptionRefused, ImportRefused, type ImportService } from './service.js';

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
/** The most a file sent to the running service may hold (the command reads any size on its own). */
export const IMPORT_JOB_MAX_BYTES = 32 * 1024 * 1024;

const USAGE =
  'import-ledger FILE --source kraken|csv [--exchange ID] [--to-wallet ID] [--dry-run]  import an exchange export into the ledger, all or nothing';

export type ImportLedgerArgs = Omit<Parsed, 'file'>;

/**
 * Imports one file's text, all or nothing, saying what it did in the command's lines: here, or
 * in the running service for a forwarding command. `signal` cancels it before the commit.
 */
export async function importLedgerText(
  service: ImportService,
  file: string,
  text: string,
  options: ImportLedgerArgs,
  output: CommandOutput,
  signal?: AbortSignal,
): Promise<number> {
  const bar =
    text.length >= LARGE
      ? output.progress({
          format: `${file} {phase} {bar} {percentage}%`,
          total: 1,
          payload: { phase: 'reading' },
        })
      : null;
  try {
    const r = await service.importLedger(text, options, {
      signal,
      onProgress: (phase, done, total) => {
        bar?.setTotal(Math.max(total, 1));
        bar?.update(done, { phase: PHASES[phase] });
      },
    });
    bar?.stop();
    const events = r.events.length;
    const lots = r.lots.length;
    const verb = r.dry_run ? 'dry run: would create' : 'created';
    output.out(
      `${file}: ${verb} ${events} event${events === 1 ? '' : 's'} and ${lots} lot${lots === 1 ? '' : 's'}; ${r.duplicates} already stored; ${r.skipped.length} line${r.skipped.length === 1 ? '' : 's'} skipped`,
    );
    for (const s of r.skipped.slice(0, LISTED)) output.out(`${file}:${s.line}: skipped: ${s.reason}`);
    if (r.skipped.length > LISTED)
      output.out(`${file}: … and ${r.skipped.length - LISTED} more skipped lines`);
    return 0;
  } catch (e) {
    bar?.stop();
    if (e instanceof ImportOptionRefused) {
      output.err(`import-ledger: --${e.option.replace('_', '-')}: ${e.reason}`);
      return 2;
    }
    if (!(e instanceof ImportRefused)) {
      output.err(`${file}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    for (const p of e.problems) output.err(`${file}:${p.line}: ${p.reason}`);
    output.err(
      `${file}: nothing imported (${e.problems.length} problem${e.problems.length === 1 ? '' : 's'})`,
    );
    return 1;
  }
}

/** `import-ledger`: POST /api/imports from the command line, here or in the running service. */
export function importLedgerCommand(opts: ImportLedgerOptions = {}): CliCommand {
  const terminal = terminalOutput();
  const output: CommandOutput = {
    out: opts.out ?? terminal.out,
    err: opts.err ?? terminal.err,
    progress: terminal.progress,
  };
  /** The arguments and the file's size, or the exit code once the reason is said. */
  const prepare = async (args: string[]): Promise<(Parsed & { size: number }) | number> => {
    const parsed = argsOf(args);
    if (typeof parsed === 'string') {
      output.err(`import-ledger: ${parsed}\nusage: ${USAGE}`);
      return 2;
    }
    const found = await stat(parsed.file).catch(() => null);
    if (!found?.isFile()) {
      output.err(`import-ledger: ${parsed.file} is not a file`);
      return 2;
    }
    return { ...parsed, size: found.size };
  };
  return {
    name: 'import-ledger',
    usage: USAGE,
    async run(args, ctx) {
      const p = await prepare(args);
      if (typeof p === 'number') return p;
      const { file, size: _size, ...options } = p;
      const service = importServiceOf(ctx, opts.rates ?? createRatesService(ctx));
      const bytes = await readFile(file);
      const notUtf8 = utf8Fault(bytes, { lines: true });
      if (notUtf8) {
        output.err(`${file}: ${notUtf8}; nothing imported`);
        return 1;
      }
      return importLedgerText(service, file, decodeUtf8(bytes), options, output);
    },
    // The file goes as the request's body: the service may not be allowed to read the user's files.
    async forward(args, service: RunningService) {
      const p = await prepare(args);
      if (typeof p === 'number') return p;
      const { file, size, ...options } = p;
      if (size > IMPORT_JOB_MAX_BYTES) {
        output.err(
          `import-ledger: ${file} is larger than ${IMPORT_JOB_MAX_BYTES} bytes, the most the running service takes at once`,
        );
        return 2;
      }
      const query: Record<string, string> = { name: file, source: options.source };
      if (options.exchange !== undefined) query.exchange = String(options.exchange);
      if (options.to_wallet !== undefined) query.to_wallet = String(options.to_wallet);
      if (options.dry_run) query.dry_run = 'true';
      const body = { type: 'text/csv', data: await readFile(file) };
      return service.runJob('import-ledger', '/api/jobs/import-ledger', { query, body }, output);
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
