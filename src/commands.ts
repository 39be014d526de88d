import { ledgerRebuildCommand } from './btc/ledger/commands.js';
import type { Command } from './context.js';

/** Command-line verbs beside serve and migrate; features add theirs here. */
export const commands: Command[] = [ledgerRebuildCommand];
