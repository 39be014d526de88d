import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { compileAll } from './lazy-compile.js';

describe('route schemas compiled on first use', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.ready();
  }, 120_000);
  afterAll(() => t?.close());

  it('compiles a route schema at its first request, and every pending one compiles', async () => {
    // a bad query is refused by its validator, a good answer is written by its serializer
    const bad = await t.call('GET', '/api/elprice?date=nonsense');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/date/);
    const health = await t.call('GET', '/health');
    expect(health.json()).toMatchObject({ status: 'ok' });
    // what no request reached yet (the full app has dozens of routes) compiles without error
    expect(compileAll()).toBeGreaterThan(50);
    expect(compileAll()).toBe(0);
  });
});
