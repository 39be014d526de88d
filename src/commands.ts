import type { Command } from './context.js';
import { backfillPrices } from './power/prices/index.js';

/** Command-line verbs beside serve and migrate; features add theirs here. */
export const commands: Command[] = [backfillPrices];
