import type { Command } from './context.js';
import { ledgerRebuildCommand } from './btc/ledger/commands.js';
import { backfillPrices } from './power/prices/index.js';
import { syncMonthCommand } from './power/metering/sync-month.js';
import { importSolarCommand } from './power/solar/import-command.js';

/** Command-line verbs beside serve and migrate; features add theirs here. */
export const commands: Command[] = [
  ledgerRebuildCommand,
  backfillPrices,
  syncMonthCommand(),
  importSolarCommand(),
];
