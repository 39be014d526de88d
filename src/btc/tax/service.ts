import Big from 'big.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import { invalid, unavailable } from '../../shared/refusal.js';
import { atFault } from '../portfolio/figures.js';
import type { RatesService } from '../rates/service.js';
import { fifo } from './fifo.js';
import { MissingValue, movementOf, spousesOf, type Spouses } from './ledger-movements.js';
import type { Movement, Owner, TaxBook } from './movements.js';
import * as repo from './repository.js';
import { yearFigures } from './year.js';

export interface TaxDeps {
  db: Db;
  clock: Clock;
  rates: RatesService;
  shutdown: AbortSignal;
  /** TAX_SPOUSES: pairs of owners who are spouses living together. */
  spouses: readonly (readonly [Owner, Owner])[];
}

const FIRST_YEAR = 2009;

/** The ledger's FIFO book per owner: the open lots, and each year's figures for the annual return. */
export class TaxService {
  private readonly spouses: Spouses;

  constructor(private readonly deps: TaxDeps) {
    this.spouses = spousesOf(deps.spouses);
  }

  /** The open lots after the events up to `at` (today unless given), of one owner or all. */
  async lots(query: { owner?: string; at?: string }) {
    const today = danishDate(this.deps.clock.now());
    if (query.at !== undefined) {
      const why = atFault(query.at, today);
      if (why) throw invalid(why);
    }
    const owner = query.owner === undefined ? null : await this.knownOwner(query.owner);
    const at = query.at ?? today;
    const book = await this.book(at);
    const lots = book.lots.filter((l) => owner === null || l.owner === owner);
    const unknown = lots.some((l) => l.cost_dkk === null);
    return {
      owner,
      at,
      sats: lots.reduce((sum, l) => sum + l.sats, 0),
      cost_dkk: unknown ? null : lots.reduce((sum, l) => sum.plus(l.cost_dkk!), new Big(0)).toFixed(2),
      lots,
    };
  }

  /** One owner's figures of one year: every disposal and income, and the rubrikker's sums. */
  async year(year: number, ownerAsked?: string) {
    const today = danishDate(this.deps.clock.now());
    const current = Number(today.slice(0, 4));
    if (year < FIRST_YEAR || year > current)
      throw invalid(`params.year: ${year} is not a year from ${FIRST_YEAR} to ${current} (this year)`);
    const owner = await this.knownOwner(ownerAsked);
    const end = `${year}-12-31`;
    const book = await this.book(end < today ? end : today);
    const mine = <T extends { owner: Owner; occurred_at: string }>(rows: T[]) =>
      rows.filter((r) => r.owner === owner && r.occurred_at.startsWith(`${year}-`));
    const disposals = mine(book.disposals);
    const income = mine(book.income);
    const figures = yearFigures({ lots: [], disposals, income }, year, owner);
    return {
      year,
      owner,
      method: 'fifo' as const,
      currency: 'DKK' as const,
      disposals,
      income,
      gains_dkk: figures.gains_dkk,
      losses_dkk: figures.losses_dkk,
      income_dkk: figures.income_dkk,
      rubrik_20_dkk: figures.rubrik_20_dkk,
      rubrik_58_dkk: figures.rubrik_58_dkk,
      unknown_cost: figures.unknown_cost,
      complete: figures.complete,
    };
  }

  /** The owner asked, checked; without one, the ledger's only owner. */
  private async knownOwner(asked: string | undefined): Promise<Owner> {
    const all = await repo.owners(this.deps.db);
    if (asked === undefined) {
      if (all.length === 1) return all[0]!;
      throw invalid(`querystring.owner: required, the wallets have ${all.length} owners: ${all.join(', ')}`);
    }
    if (!all.includes(asked))
      throw invalid(`querystring.owner: no wallet is owned by "${asked}"; the owners are ${all.join(', ')}`);
    return asked;
  }

  /** Every owner's book after the events up to `upTo`, each day's price stored first. */
  async book(upTo: string): Promise<TaxBook> {
    const provisional = await this.ensurePrices(upTo);
    const rows = await repo.taxEvents(this.deps.db, upTo, provisional);
    const movements: Movement[] = [];
    try {
      for (const row of rows) {
        const m = movementOf(row, this.spouses);
        if (m) movements.push(m);
      }
    } catch (e) {
      if (!(e instanceof MissingValue)) throw e;
      throw unavailable(
        e.what === 'rates'
          ? `the ledger holds no currency rates for ${e.day} (event ${e.event_id}); POST /api/buys/rebuild fetches them`
          : `no BTC price for ${e.day} (event ${e.event_id})`,
      );
    }
    return fifo(movements);
  }

  /**
   * Stores the price of every past day that values a fee or a gift and has none: its Kraken
   * BTC/EUR daily candle's vwap × the day's EUR/DKK rate (fetched when missing). A day whose
   * candle has not closed (the current UTC day) is valued at its candle so far, not stored.
   * Refused (unavailable) naming the days that have no candle.
   */
  private async ensurePrices(upTo: string): Promise<repo.Provisional | null> {
    const { db, rates, shutdown, clock } = this.deps;
    const days = await repo.daysNeedingPrice(db, upTo);
    if (days.length === 0) return null;
    const vwaps = await repo.dailyVwaps(db, days);
    const priced = days.filter((d) => vwaps.has(d));
    const lastClosed = new Date(clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
    const dayRates = priced.length === 0 ? [] : await rates.forDates(priced, shutdown);
    const rows = dayRates.map((r) => {
      const btc_eur = vwaps.get(r.date)!;
      return {
        date: r.date,
        btc_eur,
        eur_dkk: r.eur_dkk,
        rates_date: r.rates_date,
        btc_dkk: new Big(btc_eur).times(r.eur_dkk).toFixed(),
      };
    });
    await repo.savePrices(
      db,
      rows.filter((r) => r.date <= lastClosed),
    );
    const missing = days.filter((d) => !vwaps.has(d));
    if (missing.length > 0)
      throw unavailable(
        `no BTC/EUR daily candle is stored for ${missing.slice(0, 5).join(', ')}` +
          `${missing.length > 5 ? ` and ${missing.length - 5} more days` : ''}: ` +
          "the fees and gifts of a day are valued at its candle's vwap",
      );
    const current = rows.find((r) => r.date > lastClosed);
    return current ? { day: current.date, btc_dkk: current.btc_dkk } : null;
  }
}
