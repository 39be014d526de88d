import type { CliCommand } from '../../context.js';
import { commandArgs } from '../../shared/args.js';
import type { RunningService } from '../../remote/client.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import { createRatesService } from '../rates/index.js';
import type { ReadTable } from './projections.js';
import { LedgerService } from './service.js';

export type RebuildWhich = ReadTable | 'all';

/** Each rebuild recomputes a read table from all events, atomically; `signal` ends it between tables. */
export async function rebuildTables(
  ledger: Pick<LedgerService, 'rebuild'>,
  which: RebuildWhich,
  times: number,
  output: CommandOutput,
  signal?: AbortSignal,
): Promise<number> {
  const tables: ReadTable[] = which === 'all' ? ['deposits', 'buys'] : [which];
  for (let i = 0; i < times; i++) {
    for (const table of tables) {
      if (signal?.aborted) {
        output.err('ledger-rebuild: stopped');
        return 1;
      }
      output.out(`rebuilding ${table}`);
      output.out(`rebuilt ${table}: ${await ledger.rebuild(table)} rows`);
    }
  }
  return 0;
}

const usage =
  'ledger-rebuild [deposits|buys|all] [--times N]  recompute the ledger read tables from the events';
const TARGETS: readonly RebuildWhich[] = ['deposits', 'buys', 'all'];

/** The target and the repeat count, or the line that says what is wrong. */
export function parseRebuildArgs(args: string[]): { which: RebuildWhich; times: number } | string {
  const parsed = commandArgs(args, { times: { type: 'string' } });
  if (typeof parsed === 'string') return `ledger-rebuild: ${parsed}`;
  const { values, positionals } = parsed;
  const times = values.times === undefined ? 1 : /^\d+$/.test(values.times) ? Number(values.times) : NaN;
  if (!Number.isSafeInteger(times) || times < 1) return `ledger-rebuild: --times must be a whole number ≥ 1`;
  if (positionals.length > 1) return `ledger-rebuild: one target at most, not ${positionals.join(' ')}`;
  const which = positionals[0] ?? 'all';
  if (!TARGETS.includes(which as RebuildWhich))
    return `ledger-rebuild: unknown target "${which}"; the targets are ${TARGETS.join(', ')}`;
  return { which: which as RebuildWhich, times };
}

/** `ledger-rebuild [deposits|buys|all] [--times N]`: the rebuild endpoints from the command line. */
export function ledgerRebuildCommand(output: CommandOutput = terminalOutput()): CliCommand {
  const parse = (args: string[]) => {
    const p = parseRebuildArgs(args);
    if (typeof p !== 'string') return p;
    output.err(p);
    output.err(`usage: ${usage}`);
    return null;
  };
  return {
    name: 'ledger-rebuild',
    usage,
    async run(args, ctx) {
      const p = parse(args);
      if (!p) return 2;
      const ledger = new LedgerService({
        db: ctx.database.db,
        clock: ctx.clock,
        rates: createRatesService(ctx),
        shutdown: ctx.shutdown,
      });
      return rebuildTables(ledger, p.which, p.times, output, ctx.shutdown);
    },
    async forward(args, service: RunningService) {
      const p = parse(args);
      if (!p) return 2;
      const query = { table: p.which, times: String(p.times) };
      return service.runJob('ledger-rebuild', '/api/jobs/ledger-rebuild', { query }, output);
    },
  };
}
