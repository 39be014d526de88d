import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../shared/clock.js';
import { FeedHealth } from '../shared/health.js';
import { sleep } from '../shared/sleep.js';
import { JobRunner, type Job } from './job.js';
import { soleLeaderships, type Leadership } from './leadership.js';
import { Wake } from './wake.js';
import { switchable } from '../../test/support/leadership.js';

const log = pino({ level: 'silent' });
const never = new AbortController().signal;

function runner(job: Job, opts: { now?: string; leader?: Leadership; shutdown?: AbortSignal } = {}) {
  const clock = fixedClock(opts.now ?? '2026-07-03T10:07:00Z');
  const leadership = soleLeaderships(opts.leader ? { btcPollers: opts.leader } : {});
  return { clock, run: new JobRunner(job, { clock, log, shutdown: opts.shutdown ?? never, leadership }) };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a job on a cron schedule', () => {
  it('runs at the times of the pattern in Danish time, as the injected clock tells them', async () => {
    const at: string[] = [];
    const { clock, run } = runner(
      {
        name: 'daily',
        schedule: { cron: '7 4 * * *', recheckMs: 5 },
        first: 'on-schedule',
        round: async () => void at.push(clock.now().toISOString()),
      },
      // the night the clocks go back: 04:07 is 03:07Z on the 25th, 04:07Z on the 24th
      { now: '2026-10-24T12:00:00Z' },
    );
    run.start();
    await pause(30);
    expect(at).toEqual([]);
    clock.set('2026-10-25T03:06:59Z');
    await pause(30);
    expect(at).toEqual([]);
    clock.set('2026-10-25T03:07:00Z');
    await vi.waitFor(() => expect(at).toEqual(['2026-10-25T03:07:00.000Z']));
    // the next one is computed from the clock again: the following day at 04:07 winter time
    clock.set('2026-10-26T03:06:00Z');
    await pause(30);
    expect(at).toHaveLength(1);
    clock.set('2026-10-26T03:07:30Z');
    await vi.waitFor(() => expect(at).toHaveLength(2));
    await run.stop();
  });

  it('runs its first round at once unless told, and one round when the clock jumps over several times', async () => {
    let rounds = 0;
    const { clock, run } = runner({
      name: 'quarters',
      schedule: { cron: '*/15 * * * *', recheckMs: 5 },
      round: async () => void rounds++,
    });
    run.start();
    await vi.waitFor(() => expect(rounds).toBe(1));
    // the next time is 10:15, taken from the clock when the first round ended
    await pause(20);
    clock.advance(3 * 3_600_000);
    await vi.waitFor(() => expect(rounds).toBe(2));
    await pause(30);
    expect(rounds).toBe(2);
    await run.stop();
  });
});

describe('a job on an interval', () => {
  it('waits the interval after each round, and what afterFailure says after failed ones', async () => {
    const ends: number[] = [];
    const failures: number[] = [];
    const { run } = runner({
      name: 'poller',
      schedule: { everyMs: 5, afterFailure: (n) => 40 * n },
      round: async () => {
        ends.push(performance.now());
        if (ends.length <= 2) throw new Error('provider down');
      },
      failed: (_e, next) => failures.push(next.retryInMs!),
    });
    run.start();
    await vi.waitFor(() => expect(ends.length).toBeGreaterThan(6));
    await run.stop();
    expect(failures).toEqual([40, 80]);
    expect(ends[1]! - ends[0]!).toBeGreaterThanOrEqual(39);
    expect(ends[2]! - ends[1]!).toBeGreaterThanOrEqual(79);
    // after a round that worked, the interval again
    expect(ends[4]! - ends[3]!).toBeLessThan(40);
  });

  it('ends a wait on a poke after a round that worked, and the round comes settleMs after it', async () => {
    const wake = new Wake();
    let rounds = 0;
    const { run } = runner({
      name: 'writer',
      schedule: { everyMs: 60_000, wake, settleMs: 20 },
      round: async () => void rounds++,
    });
    run.start();
    await vi.waitFor(() => expect(rounds).toBe(1));
    wake.poke();
    wake.poke();
    await pause(5);
    expect(rounds).toBe(1);
    await vi.waitFor(() => expect(rounds).toBe(2));
    await pause(40);
    expect(rounds).toBe(2);
    await run.stop();
  });

  it("ends for good with a round that answers 'done'", async () => {
    let rounds = 0;
    const { run } = runner({
      name: 'start-fetch',
      schedule: { everyMs: 1 },
      round: async () => (++rounds === 3 ? 'done' : undefined),
    });
    run.start();
    await vi.waitFor(() => expect(rounds).toBe(3));
    await pause(20);
    await run.runNow();
    expect(rounds).toBe(3);
    await run.stop();
  });
});

describe('the rounds of a job', () => {
  it('never overlap: a round asked for while one runs is that one', async () => {
    let rounds = 0;
    const { run } = runner({
      name: 'slow',
      schedule: { cron: '0 0 1 1 *' },
      first: 'on-schedule',
      round: async () => {
        rounds++;
        await pause(20);
      },
    });
    await Promise.all([run.runNow(), run.runNow(), run.runNow()]);
    expect(rounds).toBe(1);
  });

  it('the first after a delay, only when `when` says so; firstRound settles either way', async () => {
    let rounds = 0;
    const job = (due: boolean): Job => ({
      name: 'backup',
      schedule: { cron: '7 4 * * *' },
      first: { afterMs: 10, when: async () => due },
      round: async () => void rounds++,
    });
    const late = runner(job(true)).run;
    late.start();
    await late.firstRound();
    expect(rounds).toBe(1);
    await late.stop();
    const fresh = runner(job(false)).run;
    fresh.start();
    await fresh.firstRound();
    await fresh.stop();
    expect(rounds).toBe(1);
  });

  it('stop ends every wait at once and waits for the round under way, which hears it', async () => {
    let heard = false;
    const { run } = runner({
      name: 'long',
      schedule: { everyMs: 60_000 },
      first: { afterMs: 60_000 },
      round: async () => {},
    });
    run.start();
    const t0 = performance.now();
    await run.stop();
    expect(performance.now() - t0).toBeLessThan(100);

    const busy = runner({
      name: 'busy',
      schedule: { cron: '* * * * *' },
      round: async (signal) => {
        await sleep(60_000, signal);
        heard = signal.aborted;
      },
    }).run;
    busy.start();
    await pause(10);
    const t1 = performance.now();
    await busy.stop();
    expect(performance.now() - t1).toBeLessThan(100);
    expect(heard).toBe(true);
  });
});

describe('a leader-only job', () => {
  it('runs while this process leads, says standby in its feed otherwise, and a lost lead aborts its round', async () => {
    const leadership = switchable(false);
    const health = new FeedHealth('ohlc', true);
    const signals: AbortSignal[] = [];
    const { run } = runner(
      {
        name: 'candles',
        schedule: { everyMs: 5 },
        lock: 'btcPollers',
        health,
        standby: 'another process polls',
        round: async (signal) => {
          signals.push(signal);
          await sleep(60_000, signal);
        },
      },
      { leader: leadership },
    );
    run.start();
    await run.runNow();
    await pause(20);
    expect(signals).toEqual([]);
    expect(health.detail).toBe('another process polls');
    leadership.set(true);
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    expect(health.detail).toBeNull();
    leadership.set(false);
    await vi.waitFor(() => expect(signals[0]!.aborted).toBe(true));
    expect(health.detail).toBe('another process polls');
    await pause(20);
    expect(signals).toHaveLength(1);
    await run.stop();
    // a stop is not a lost lead: the feed keeps what it said
    expect(health.detail).toBe('another process polls');
  });

  it('a lead regained while the last round still ends gets a round of its own', async () => {
    const leadership = switchable(true);
    let rounds = 0;
    let open = 0;
    const { run } = runner(
      {
        name: 'publisher',
        schedule: { once: true },
        lock: 'btcPollers',
        round: async (signal) => {
          rounds++;
          open++;
          await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
          // a clean goodbye takes a while
          await pause(30);
          open--;
        },
      },
      { leader: leadership },
    );
    run.start();
    await vi.waitFor(() => expect(open).toBe(1));
    leadership.set(false);
    leadership.set(true);
    await vi.waitFor(() => expect(rounds).toBe(2));
    await pause(40);
    expect(open).toBe(1);
    await run.stop();
    expect(open).toBe(0);
  });
});
