import { Presets, SingleBar } from 'cli-progress';
import type { CliCommand } from '../../context.js';
import { refreshTokenSource } from '../../providers/eloverblik.js';
import { addDays, danishDate } from '../../shared/danish-time.js';
import { createMeteringService, type MeteringOptions } from './index.js';
import type { SyncResult } from './service.js';

export interface SyncMonthOptions extends MeteringOptions {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The metering sync of each past day of a month, in order; a failed day is reported and the rest go on. */
export function syncMonthCommand(opts: SyncMonthOptions = {}): CliCommand {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    name: 'sync-month',
    usage: 'sync-month YYYY-MM    metering sync (Eloverblik) of each past day of a month',
    async run(args, ctx) {
      const month = args[0] ?? '';
      if (args.length !== 1 || !MONTH.test(month)) {
        err(`sync-month: expected one month as YYYY-MM, got "${args.join(' ')}"`);
        return 2;
      }
      const today = danishDate(ctx.clock.now());
      const days: string[] = [];
      for (let d = `${month}-01`; d.startsWith(month) && d < today; d = addDays(d, 1)) days.push(d);
      if (days.length === 0) {
        err(`sync-month: ${month} has no past day yet (today is ${today} in Denmark)`);
        return 2;
      }
      try {
        await refreshTokenSource(ctx.config)();
      } catch (e) {
        err(`sync-month: ${(e as Error).message}`);
        return 2;
      }
      const service = createMeteringService(ctx, opts);
      const bar = new SingleBar(
        { format: 'sync-month {bar} {value}/{total} days | {day}', stream: process.stderr },
        Presets.shades_classic,
      );
      bar.start(days.length, 0, { day: days[0] });
      const done: SyncResult[] = [];
      const failed: { day: string; error: string }[] = [];
      for (const day of days) {
        try {
          done.push(await service.sync(day));
        } catch (e) {
          failed.push({ day, error: e instanceof Error ? e.message : String(e) });
        }
        bar.increment(1, { day });
      }
      bar.stop();
      for (const f of failed) err(`${f.day}: failed: ${f.error}`);
      const count = (status: SyncResult['status']) => done.filter((r) => r.status === status).length;
      const sum = (key: 'production' | 'consumption') => done.reduce((s, r) => s + r[key], 0);
      out(
        `sync-month ${month}: ${days.length} days; ${count('synced')} synced ` +
          `(${sum('production')} production and ${sum('consumption')} consumption rows), ` +
          `${count('already synced')} already synced, ${count('no data to fetch')} no data to fetch, ` +
          `${failed.length} failed${failed.length ? ` (${failed.map((f) => f.day).join(', ')})` : ''}`,
      );
      return failed.length > 0 ? 1 : 0;
    },
  };
}
