import { describe, expect, it } from 'vitest';
import { systemClock } from '../shared/clock.js';
import { Throttle } from './throttle.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the throttle', () => {
  it('runs at once, then at most once per interval however many pokes come', async () => {
    const runs: number[] = [];
    const t = new Throttle(300, systemClock, async () => void runs.push(performance.now()));
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) {
      t.poke();
      await pause(10);
    }
    // the first run, and one per 300 ms of poking after it
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeLessThanOrEqual(2 + Math.floor((performance.now() - t0) / 300));
    for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBeGreaterThanOrEqual(290);
    await pause(400);
    const settled = runs.length;
    await pause(400);
    expect(runs.length).toBe(settled);
    await t.stop();
  });

  it('runs once more after a run that a poke came during', async () => {
    let runs = 0;
    let release = () => {};
    const t = new Throttle(0, systemClock, async () => {
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
    });
    t.poke();
    t.poke();
    t.poke();
    expect(runs).toBe(1);
    release();
    await pause(50);
    expect(runs).toBe(2);
    await t.stop();
  });

  it('runs nothing after it is stopped', async () => {
    let runs = 0;
    const t = new Throttle(200, systemClock, async () => void runs++);
    t.poke();
    t.poke();
    await t.stop();
    t.poke();
    await pause(300);
    expect(runs).toBe(1);
  });
});
