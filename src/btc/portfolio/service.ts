import Big from 'big.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import { ProviderError } from '../../providers/http.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import { invalid, unavailable } from '../../shared/refusal.js';
import type { RatesService } from '../rates/service.js';
import {
  atFault,
  dayCloseInstant,
  portfolioFigures,
  type Holdings,
  type PortfolioJson,
  type Price,
} from './figures.js';
import { dailyCloses } from '../candles/repository.js';
import { latestPrice } from '../market/repository.js';
import * as repo from './repository.js';

export interface PortfolioDeps {
  db: Db;
  clock: Clock;
  rates: RatesService;
  log: Logger;
  shutdown: AbortSignal;
}

export class PortfolioService {
  constructor(private readonly deps: PortfolioDeps) {}

  /**
   * Now (at the latest spot price), or as of the end of the day `at` (at its daily close); refused
   * (unavailable) while the ledger holds buys without their day's rates.
   */
  async portfolio(at?: string): Promise<PortfolioJson> {
    if (at !== undefined) {
      const why = atFault(at, danishDate(this.deps.clock.now()));
      if (why) throw invalid(why);
    }
    const { holdings, spot, closes } = await this.snapshot(at);
    if (holdings.totals.unconverted !== null)
      throw unavailable(
        `the ledger holds no rates for the buys of ${holdings.totals.unconverted}; ` +
          'POST /api/buys/rebuild fetches them',
      );
    if (at === undefined) {
      const asOf = spot?.at ?? this.deps.clock.now();
      return portfolioFigures(holdings, spot ?? null, asOf);
    }
    const price = closes === null ? null : await this.withDkk(at, closes);
    return portfolioFigures(holdings, price, dayCloseInstant(at));
  }

  /**
   * Balances, sums and price read in one REPEATABLE READ snapshot, so that an event written
   * meanwhile cannot show in one figure and not in another (sats = bought − fees always holds).
   */
  private snapshot(at: string | undefined) {
    return this.deps.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const totals = await repo.totals(trx, at);
        const wallets =
          at === undefined ? await repo.walletBalances(trx) : await repo.walletBalancesAt(trx, at);
        const holdings: Holdings = { totals, wallets };
        if (at === undefined) return { holdings, spot: await latestPrice(trx), closes: null };
        const rows = await dailyCloses(trx, new Date(`${at}T00:00:00Z`));
        const close = (pair: string) => rows.find((r) => r.pair === pair)?.close ?? null;
        const closes = rows.length === 0 ? null : { eur: close('BTC/EUR'), usd: close('BTC/USD') };
        return { holdings, spot: undefined, closes };
      });
  }

  /**
   * BTC/DKK of a past day: its BTC/EUR close at the EUR/DKK rate of that day (the rates
   * feature's stored record, fetched when missing). Null while those rates cannot be had.
   */
  private async withDkk(day: string, closes: { eur: string | null; usd: string | null }): Promise<Price> {
    let dkk: string | null = null;
    if (closes.eur !== null) {
      try {
        const rates = await this.deps.rates.forDate(day, this.deps.shutdown);
        dkk = new Big(closes.eur).times(rates.eur_dkk).toString();
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        this.deps.log.warn({ day, err: e.message }, 'no EUR/DKK rate for the portfolio: btc_dkk is null');
      }
    }
    return { btc_eur: closes.eur, btc_usd: closes.usd, btc_dkk: dkk };
  }
}
