import { SingleBar, Presets } from 'cli-progress';
import type { CliCommand } from '../../context.js';
import { createPriceService } from './index.js';
import { addDays, isCalendarDate } from '../../shared/danish-time.js';

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

export const backfillPricesCommand: CliCommand = {
  name: 'backfill-prices',
  usage: 'backfill-prices FROM TO   fetch and store day-ahead prices of the Danish days FROM..TO (inclusive)',
  async run(args, ctx) {
    const [from, to] = args;
    if (args.length !== 2 || !from || !to || !isCalendarDate(from) || !isCalendarDate(to)) {
      console.error('usage: backfill-prices FROM TO  (dates YYYY-MM-DD, TO included)');
      return 2;
    }
    if (to < from) {
      console.error(`backfill-prices: TO (${to}) is before FROM (${from})`);
      return 2;
    }
    const service = createPriceService(ctx);
    const lastPublished = addDays(service.today(), 1);
    const until = to > lastPublished ? lastPublished : to;
    if (until !== to)
      console.error(`backfill-prices: prices exist only through ${lastPublished}; stopping there`);
    const bar = new SingleBar(
      { format: 'prices {bar} {value}/{total} days | {quarters} new rows | {range}', hideCursor: true },
      Presets.shades_classic,
    );
    bar.start(dayCount(from, until) + 1, 0, { quarters: 0, range: '' });
    let quarters = 0;
    let hours = 0;
    try {
      for (const [start, end] of backfillChunks(from, until)) {
        const stored = await service.fetchRange(start, end);
        quarters += stored.quarters;
        hours += stored.hours;
        bar.increment(dayCount(start, end), { quarters, range: `${start}..${addDays(end, -1)}` });
      }
    } catch (e) {
      bar.stop();
      console.error(
        `backfill-prices: ${(e as Error).message}; what was stored so far stays, run it again to go on`,
      );
      return 1;
    }
    bar.stop();
    console.log(`backfill-prices ${from}..${until}: ${quarters} new price rows, ${hours} new hourly rows`);
    return 0;
  },
};
