import type { CliCommand } from '../../context.js';
import { createRatesService } from '../rates/index.js';
import type { ReadTable } from './projections.js';
import { createLedgerService } from './service.js';

/** `ledger-rebuild [deposits|buys|all] [--times N]`: the rebuild endpoints from the command line. */
export const ledgerRebuildCommand: CliCommand = {
  name: 'ledger-rebuild',
  usage: 'ledger-rebuild [deposits|buys|all] [--times N]  recompute the ledger read tables from the events',
  async run(args, ctx) {
    const timesAt = args.indexOf('--times');
    const times = timesAt >= 0 ? Number(args[timesAt + 1]) : 1;
    const which = args.find((a, i) => !a.startsWith('--') && i !== timesAt + 1) ?? 'all';
    if (!['deposits', 'buys', 'all'].includes(which) || !Number.isInteger(times) || times < 1) {
      console.error(`usage: ${this.usage}`);
      return 2;
    }
    const tables: ReadTable[] = which === 'all' ? ['deposits', 'buys'] : [which as ReadTable];
    const ledger = createLedgerService(ctx, createRatesService(ctx));
    for (let i = 0; i < times; i++) {
      for (const table of tables) {
        console.log(`rebuilding ${table}`);
        console.log(`rebuilt ${table}: ${await ledger.rebuild(table)} rows`);
      }
    }
    return 0;
  },
};
