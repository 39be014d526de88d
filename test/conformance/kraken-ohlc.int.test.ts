import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/http.js';
import { KrakenOhlcClient, type OhlcInterval } from '../../src/providers/kraken-ohlc.js';
import { FakeHttpServer } from '../fakes/http.js';
import { SHARED_FIXTURES_DIR, sharedFixture, sharedFixturesPresent } from '../fakes/shared-fixtures.js';
import { testDeps } from '../support/providers.js';

if (!sharedFixturesPresent) console.log(`conformance/kraken-ohlc: ${SHARED_FIXTURES_DIR} is absent; skipped`);

type Recorded = { error: string[]; result: Record<string, unknown> & { last: number } };

describe.skipIf(!sharedFixturesPresent)('Kraken OHLC recorded answers through the adapter', () => {
  let fake: FakeHttpServer;
  let client: KrakenOhlcClient;
  let serving = '';

  beforeAll(async () => {
    fake = await FakeHttpServer.start();
    fake.on('GET', '/0/public/OHLC', () => ({ json: sharedFixture(`kraken/${serving}`) }));
    client = new KrakenOhlcClient({ ...testDeps('kraken'), baseUrl: fake.url, timeoutMs: 1000, retries: 0 });
  });
  afterAll(() => fake.close());

  const recorded = sharedFixturesPresent
    ? readdirSync(`${SHARED_FIXTURES_DIR}/kraken`).filter((f) => /ohlc/i.test(f) && !/error/.test(f))
    : [];

  it('finds the recorded OHLC answers', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(2);
  });

  it.each(recorded)('reads %s exactly as recorded', async (file) => {
    serving = file;
    const want = sharedFixture<Recorded>(`kraken/${file}`);
    const interval = Number(/_(\d+)m?_/.exec(file)?.[1] ?? '60') as OhlcInterval;
    const page = await client.ohlc('XBTUSD', interval, { since: 1_700_000_000 });
    expect(page.pairKey).toBe('XXBTZUSD');
    expect(page.last).toBe(want.result.last);
    const rows = want.result.XXBTZUSD as unknown[][];
    expect(page.rows.map((r) => [r.time, r.open, r.high, r.low, r.close, r.vwap, r.volume, r.count])).toEqual(
      rows,
    );
    expect(fake.requests.at(-1)?.query.get('since')).toBe('1700000000');
  });

  it('keeps the recorded rule: last is the second-to-last row, the final row is forming', async () => {
    serving = 'ohlc_XBTUSD_60m_2023-12-05_rustircbot.json';
    const page = await client.ohlc('XBTUSD', 60);
    expect(page.rows.at(-2)?.time).toBe(page.last);
    expect(page.rows.filter((r) => r.time <= page.last)).toHaveLength(page.rows.length - 1);
  });

  it('turns the recorded error in a 200 answer into a provider error', async () => {
    serving = 'rest_error_unknown_asset_pair_http200.json';
    const e = await client.ohlc('XBTUSD', 1).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).message).toMatch(/EQuery:Unknown asset pair/);
  });
});
