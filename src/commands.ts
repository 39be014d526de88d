import type { CliCommand, ConfigCommand } from './context.js';
import { importLedgerCommand } from './btc/imports/command.js';
import { backupCommand, restoreCommand } from './ops/backup/command.js';
import { ledgerRebuildCommand } from './btc/ledger/command.js';
import { syncMonthCommand } from './power/metering/command.js';
import { backfillPricesCommand } from './power/prices/command.js';
import { importSolarCommand } from './power/solar/command.js';

/** Command-line verbs beside serve and migrate. */
export const COMMANDS: readonly (CliCommand | ConfigCommand)[] = [
  ledgerRebuildCommand(),
  importLedgerCommand(),
  backfillPricesCommand,
  syncMonthCommand(),
  importSolarCommand(),
  backupCommand,
  restoreCommand,
];
