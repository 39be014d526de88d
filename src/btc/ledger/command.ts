import type { CliCommand } from '../../context.js';
import type { RunningService } from '../../remote/client.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import { createRatesService } from '../rates/index.js';
import type { ReadTable } from './projections.js';
import { createLedgerService, type LedgerService } from './service.js';

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
const output = terminalOutput();

function parse(args: string[]): { which: RebuildWhich; times: number } | null {
  const timesAt = args.indexOf('--times');
  const times = timesAt >= 0 ? Number(args[timesAt + 1]) : 1;
  const which = args.find((a, i) => !a.startsWith('--') && i !== timesAt + 1) ?? 'all';
  if (!['deposits', 'buys', 'all'].includes(which) || !Number.isInteger(times) || times < 1) {
    output.err(`usage: ${usage}`);
    return null;
  }
  return { which: which as RebuildWhich, times };
}

/** `ledger-rebuild [deposits|buys|all] [--times N]`: the rebuild endpoints from the command line. */
export const ledgerRebuildCommand: CliCommand = {
  name: 'ledger-rebuild',
  usage,
  async run(args, ctx) {
    const p = parse(args);
    if (!p) return 2;
    const ledger = createLedgerService(ctx, createRatesService(ctx));
    return rebuildTables(ledger, p.which, p.times, output, ctx.shutdown);
  },
  async forward(args, service: RunningService) {
    const p = parse(args);
    if (!p) return 2;
    const query = { table: p.which, times: String(p.times) };
    return service.runJob('ledger-rebuild', '/api/jobs/ledger-rebuild', { query }, output);
  },
};
