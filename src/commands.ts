import type { Command } from './context.js';
import { syncMonthCommand } from './power/metering/sync-month.js';

/** Command-line verbs beside serve and migrate; features add theirs here. */
export const commands: Command[] = [syncMonthCommand()];
