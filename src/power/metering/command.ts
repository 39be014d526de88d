import type { CliCommand } from '../../context.js';
import { commandArgs } from '../../shared/args.js';
import { refreshTokenSource } from '../../providers/eloverblik.js';
import type { RunningService } from '../../remote/client.js';
import type { Clock } from '../../shared/clock.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import { addDays, danishDate } from '../../shared/danish-time.js';
import { createMeteringService, type MeteringOptions } from './index.js';
import { MONTH_PATTERN } from './schemas.js';
import type { MeteringService, SyncResult } from './service.js';

export interface SyncMonthOptions extends MeteringOptions {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

const MONTH = new RegExp(MONTH_PATTERN);

export interface SyncMonthDeps {
  service: MeteringService;
  clock: Clock;
  /** Fails with the reason when no refresh token is configured. */
  checkToken: () => Promise<unknown>;
}

/**
 * The metering sync of each past day of a month, in order; a failed day is reported and the rest
 * go on. `signal` ends it after the day in progress (the days done stay stored).
 */
export async function syncMonth(
  deps: SyncMonthDeps,
  month: string,
  output: CommandOutput,
  signal?: AbortSignal,
): Promise<number> {
  const today = danishDate(deps.clock.now());
  const days: string[] = [];
  for (let d = `${month}-01`; d.startsWith(month) && d < today; d = addDays(d, 1)) days.push(d);
  if (days.length === 0) {
    output.err(`sync-month: ${month} has no past day yet (today is ${today} in Denmark)`);
    return 2;
  }
  try {
    await deps.checkToken();
  } catch (e) {
    output.err(`sync-month: ${(e as Error).message}`);
    return 2;
  }
  const bar = output.progress({
    format: 'sync-month {bar} {value}/{total} days | {day}',
    total: days.length,
    payload: { day: days[0]! },
  });
  const done: SyncResult[] = [];
  const failed: { day: string; error: string }[] = [];
  for (const day of days) {
    if (signal?.aborted) break;
    try {
      // no signal: with one, the call counts as a client's request, refused when the budget is spent instead of waiting
      done.push(await deps.service.sync(day));
    } catch (e) {
      failed.push({ day, error: e instanceof Error ? e.message : String(e) });
    }
    bar.increment(1, { day });
  }
  bar.stop();
  for (const f of failed) output.err(`${f.day}: failed: ${f.error}`);
  const count = (status: SyncResult['status']) => done.filter((r) => r.status === status).length;
  const sum = (key: 'production' | 'consumption') => done.reduce((s, r) => s + r[key], 0);
  const stopped = days.length - done.length - failed.length;
  output.out(
    `sync-month ${month}: ${days.length} days; ${count('synced')} synced ` +
      `(${sum('production')} production and ${sum('consumption')} consumption rows), ` +
      `${count('already synced')} already synced, ${count('no data to fetch')} no data to fetch, ` +
      `${failed.length} failed${failed.length ? ` (${failed.map((f) => f.day).join(', ')})` : ''}` +
      (stopped > 0 ? `, ${stopped} not done (stopped)` : ''),
  );
  return failed.length > 0 || stopped > 0 ? 1 : 0;
}

/** `sync-month YYYY-MM`, here or in the running service that holds the database. */
export function syncMonthCommand(opts: SyncMonthOptions = {}): CliCommand {
  const terminal = terminalOutput();
  const output: CommandOutput = {
    out: opts.out ?? terminal.out,
    err: opts.err ?? terminal.err,
    progress: terminal.progress,
  };
  const parse = (args: string[]): string | null => {
    const parsed = commandArgs(args, {});
    if (typeof parsed === 'string') {
      output.err(`sync-month: ${parsed}`);
      return null;
    }
    const [month = ''] = parsed.positionals;
    if (parsed.positionals.length === 1 && MONTH.test(month)) return month;
    output.err(`sync-month: expected one month as YYYY-MM from 2013-01 to 2099-12, got "${args.join(' ')}"`);
    return null;
  };
  return {
    name: 'sync-month',
    usage: 'sync-month YYYY-MM    metering sync (Eloverblik) of each past day of a month',
    async run(args, ctx) {
      const month = parse(args);
      if (month === null) return 2;
      const deps = {
        service: createMeteringService(ctx, opts),
        clock: ctx.clock,
        checkToken: () => refreshTokenSource(ctx.config)(),
      };
      return syncMonth(deps, month, output, ctx.shutdown);
    },
    async forward(args, service: RunningService) {
      const month = parse(args);
      if (month === null) return 2;
      return service.runJob('sync-month', '/api/jobs/sync-month', { query: { month } }, output);
    },
  };
}
