import type { CliCommand } from '../../context.js';
import { commandArgs } from '../../shared/args.js';
import type { RunningService } from '../../remote/client.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import { addDays, isCalendarDate } from '../../shared/danish-time.js';
import { createElectricityPriceService } from './index.js';
import type { ElectricityPriceService } from './service.js';

/** Days per request: a month of quarter hours for two areas is about 6,000 rows, well within one answer. */
export const BACKFILL_CHUNK_DAYS = 31;

/** Splits the Danish days [from, to] into request-sized ranges [start, end). */
export function backfillChunks(from: string, to: string, days = BACKFILL_CHUNK_DAYS): [string, string][] {
  const out: [string, string][] = [];
  const stop = addDays(to, 1);
  for (let start = from; start < stop;) {
    let end = addDays(start, days);
    if (end > stop) end = stop;
    out.push([start, end]);
    start = end;
  }
  return out;
}

const dayCount = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/**
 * Day-ahead prices of the Danish days [from, to], a month per request, stopping at the last
 * published day; `signal` ends it after the month in progress (what was stored stays).
 */
export async function backfillPrices(
  service: Pick<ElectricityPriceService, 'today' | 'fetchRange'>,
  from: string,
  to: string,
  output: CommandOutput,
  signal?: AbortSignal,
): Promise<number> {
  const lastPublished = addDays(service.today(), 1);
  const until = to > lastPublished ? lastPublished : to;
  if (until !== to) output.err(`backfill-prices: prices exist only through ${lastPublished}; stopping there`);
  const bar = output.progress({
    format: 'prices {bar} {value}/{total} days | {quarters} new rows | {range}',
    total: dayCount(from, until) + 1,
    payload: { quarters: 0, range: '' },
  });
  let quarters = 0;
  let hours = 0;
  try {
    for (const [start, end] of backfillChunks(from, until)) {
      if (signal?.aborted) throw new Error('stopped');
      const stored = await service.fetchRange(start, end);
      quarters += stored.quarters;
      hours += stored.hours;
      bar.increment(dayCount(start, end), { quarters, range: `${start}..${addDays(end, -1)}` });
    }
  } catch (e) {
    bar.stop();
    output.err(
      `backfill-prices: ${(e as Error).message}; what was stored so far stays, run it again to go on`,
    );
    return 1;
  }
  bar.stop();
  output.out(`backfill-prices ${from}..${until}: ${quarters} new price rows, ${hours} new hourly rows`);
  return 0;
}

function parse(args: string[], output: CommandOutput): { from: string; to: string } | null {
  const parsed = commandArgs(args, {});
  if (typeof parsed === 'string') output.err(`backfill-prices: ${parsed}`);
  const positionals = typeof parsed === 'string' ? [] : parsed.positionals;
  const [from, to] = positionals;
  if (positionals.length !== 2 || !from || !to || !isCalendarDate(from) || !isCalendarDate(to)) {
    output.err('usage: backfill-prices FROM TO  (dates YYYY-MM-DD, TO included)');
    return null;
  }
  if (to < from) {
    output.err(`backfill-prices: TO (${to}) is before FROM (${from})`);
    return null;
  }
  return { from, to };
}

const output = terminalOutput();

export const backfillPricesCommand: CliCommand = {
  name: 'backfill-prices',
  usage: 'backfill-prices FROM TO   fetch and store day-ahead prices of the Danish days FROM..TO (inclusive)',
  async run(args, ctx) {
    const range = parse(args, output);
    if (!range) return 2;
    return backfillPrices(createElectricityPriceService(ctx), range.from, range.to, output, ctx.shutdown);
  },
  async forward(args, service: RunningService) {
    const range = parse(args, output);
    if (!range) return 2;
    return service.runJob('backfill-prices', '/api/jobs/backfill-prices', { query: range }, output);
  },
};
