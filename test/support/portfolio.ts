import Big from 'big.js';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { createRatesService } from '../../src/btc/rates/index.js';
import { crossRate } from '../../src/providers/frankfurter.js';
import { generatedRates, publicationDay, startFakeFrankfurter } from '../fakes/frankfurter.js';
import type { FakeHttpServer } from '../fakes/http.js';
import { startTestApp, type TestApp } from './app.js';
import { ledgerAndPortfolio } from './services.js';

type Fiat = { eur: string; dkk: string; usd: string };
export interface PortfolioAnswer {
  as_of: string;
  price: { btc_eur: string | null; btc_usd: string | null; btc_dkk: string | null } | null;
  sats: number;
  bought_sats: number;
  fee_sats: number;
  cost: Fiat;
  average_price: Fiat | null;
  value: Fiat | null;
  unrealized_pnl: Fiat | null;
  wallets: { id: number; name: string; wallet_type: string; sats: number; value: Fiat | null }[];
}

export const NOW = '2026-07-03T10:00:00Z';

/**
 * The ledger and the portfolio over the real rates service, whose provider is the fake
 * Frankfurter (weekends answer the previous Friday's rates, as the ECB's do). Events are made
 * through the API, in date order.
 */
export async function startPortfolioApp() {
  const token = 'portfolio-test-token-0123456789';
  const auth = { authorization: `Bearer ${token}` };
  const fake: FakeHttpServer = await startFakeFrankfurter({ latest: '2026-07-03' });
  const t: TestApp = await startTestApp({
    now: NOW,
    env: { API_TOKEN: token, RATES_FEED_URL: fake.url, PROVIDER_TIMEOUT_MS: '500' },
    services: ledgerAndPortfolio((ctx) => createRatesService(ctx)),
  });
  const wallets = (await t.call('GET', '/api/wallets', undefined, auth)).json<
    { id: number; wallet_type: string }[]
  >();
  const exchange = wallets.find((w) => w.wallet_type === 'exchange')!.id;
  const cold = wallets.filter((w) => w.wallet_type === 'wallet').map((w) => w.id);

  const post = async (body: Record<string, unknown>): Promise<number> => {
    const res = await t.call('POST', '/api/events', body, auth);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };

  return {
    t,
    fake,
    auth,
    exchange,
    cold,
    get: (url: string) => t.call('GET', url, undefined, auth),
    async portfolio(query = ''): Promise<PortfolioAnswer> {
      const res = await t.call('GET', `/api/portfolio${query}`, undefined, auth);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<PortfolioAnswer>();
    },
    /** A buy on the first exchange (its fee_sats is informational), into the first cold wallet by default. */
    buy: (occurred_at: string, sats: number, amount: string, currency = 'EUR', to = cold[0]) =>
      post({
        type: 'exchange_to_wallet',
        occurred_at,
        from_wallet: exchange,
        to_wallet: to,
        sats,
        fee_sats: 250,
        amount,
        currency,
      }),
    transfer: (occurred_at: string, from: number, to: number, sats: number, fee_sats: number) =>
      post({ type: 'wallet_to_wallet', occurred_at, from_wallet: from, to_wallet: to, sats, fee_sats }),
    /** An empty ledger and no prices or candles, at NOW, the provider healthy. */
    async reset() {
      fake.heal();
      t.clock.set(NOW);
      const db = t.db.database.db;
      await sql`truncate btc.events, btc.wallet_days, btc.deposits, btc.buys, btc.idempotency_keys, btc.spot_prices, btc.candles_day`.execute(
        db,
      );
      await sql`update btc.wallets set balance = 0`.execute(db);
    },
    async close() {
      await t.close();
      await fake.close();
    },
  };
}

/** The rates the fake provider publishes for a day (the previous business day's on weekends). */
export function providerRates(day: string) {
  const g = generatedRates(publicationDay(day));
  return { usd_eur: g.EUR, usd_dkk: g.DKK, eur_dkk: crossRate(g.EUR, g.DKK) };
}

export const cents = (x: Big) => x.round(2, Big.roundHalfUp).toFixed(2);
