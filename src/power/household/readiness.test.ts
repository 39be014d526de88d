import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../shared/clock.js';
import { Refusal } from '../../shared/refusal.js';
import { ChargesReadiness } from './readiness.js';

const NOW = '2026-11-03T10:00:00Z';
const loading = (waitMs: number, shutdown?: AbortSignal) => {
  const clock = fixedClock(NOW);
  return new ChargesReadiness({ clock, waitMs, shutdown }, { state: 'loading', since: clock.now() });
};
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as Refusal,
  );

describe('whether the household charges are known', () => {
  it('answers at once when known, which is the state without a refresh to wait for', async () => {
    const r = new ChargesReadiness({ clock: fixedClock(NOW) });
    await expect(r.need()).resolves.toBeUndefined();
    expect(r.describe()).toBeNull();
  });

  it('lets a caller wait for the first refresh that ends within the bound', async () => {
    const r = loading(5_000);
    const waiting = r.need();
    setTimeout(() => r.ready(), 50);
    await expect(waiting).resolves.toBeUndefined();
  });

  it('refuses after the bound: unavailable, with Retry-After 5', async () => {
    const r = loading(50);
    const started = Date.now();
    const e = await refusal(r.need());
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(e).toMatchObject({ kind: 'unavailable', retryAfterS: 5 });
    expect(e!.detail).toMatch(
      /household's charges are loading \(their first refresh, since 2026-11-03T10:00:00\.000Z\)/,
    );
    expect(r.describe()).toMatch(/^starting: .*wait up to 0\.05 s, then 503/);
  });

  it('ends the wait at once when the request or the process stops', async () => {
    const stop = new AbortController();
    const r = loading(60_000, stop.signal);
    const caller = new AbortController();
    const one = refusal(r.need(caller.signal));
    const two = refusal(r.need());
    caller.abort();
    expect(await one).toMatchObject({ kind: 'unavailable' });
    stop.abort();
    expect(await two).toMatchObject({ kind: 'unavailable' });
  });

  it('refuses at once after a failed first refresh, until the next round; a waiting caller too', async () => {
    const r = loading(60_000);
    const waiting = refusal(r.need());
    r.failed(new Error('eloverblik: HTTP 500'), new Date('2026-11-03T10:15:00Z'));
    const e = await waiting;
    expect(e).toMatchObject({ kind: 'unavailable', retryAfterS: 900 });
    expect(e!.detail).toMatch(
      /first refresh failed \(eloverblik: HTTP 500\); it is retried at 2026-11-03T10:15:00/,
    );
    // the next round runs: callers wait again, and its success lets them through
    r.loading();
    const again = r.need();
    r.ready();
    await expect(again).resolves.toBeUndefined();
  });

  it('stays known once known: a later failure keeps what is stored', async () => {
    const r = loading(10);
    r.ready();
    r.failed(new Error('down'));
    r.loading();
    expect(r.known).toBe(true);
    await expect(r.need()).resolves.toBeUndefined();
  });
});
