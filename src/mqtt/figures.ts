import type { Logger } from 'pino';
import type { ChainService } from '../btc/chain/service.js';
import type { MarketService } from '../btc/market/service.js';
import type { PortfolioService } from '../btc/portfolio/service.js';
import type { CostService } from '../power/costs/service.js';
import type { ElectricityPriceService } from '../power/prices/service.js';
import type { PricesDay } from '../power/prices/schemas.js';
import type { Clock } from '../shared/clock.js';
import { addDays, danishDate, danishDayBounds, toDanishIso } from '../shared/danish-time.js';
import * as E from './entities.js';
import type { Entity } from './entities.js';
import type { Update } from './publisher.js';
import * as S from './states.js';
import { consumerDay, dayAttributes, spotDay } from './attributes.js';
import type { WindowSettings } from './windows/control.js';
import { ALL_WINDOW_ENTITIES } from './windows/entities.js';
import { WindowReader, type WindowSources } from './windows/read.js';

/**
 * The services that answer the API, as far as this process runs them. Every figure is read
 * through the same method the API's route calls, so a state equals the API's answer for the
 * same instant.
 */
export interface MqttSources {
  power:
    | ({
        prices: Pick<ElectricityPriceService, 'prices' | 'charges' | 'onChargesChanged'>;
        costs: Pick<CostService, 'consumerPrices' | 'cheapest' | 'costs' | 'lastMeteredDay'>;
      } & WindowSources)
    | null;
  market: Pick<MarketService, 'latestPrice' | 'latestQuote'> | null;
  portfolio: Pick<PortfolioService, 'portfolio'> | null;
  /** The watched wallets’ differences from the chain. */
  chain: Pick<ChainService, 'differences'> | null;
}

/** Reads the figures and turns them into updates; a figure that cannot be read is unknown. */
export class FigureReader {
  private readonly windowReader: WindowReader | null;

  constructor(
    private readonly sources: MqttSources,
    private readonly deps: { clock: Clock; area: 'DK1' | 'DK2'; log: Logger },
  ) {
    const power = sources.power;
    this.windowReader =
      power &&
      new WindowReader(power, {
        ...deps,
        read: (what, fn) => this.read(what, fn),
        chargesKnown: () => power.prices.charges.known,
      });
  }

  /** The entities these sources give (private ones included; the publisher drops them without MQTT_PRIVATE). */
  entities(): Entity[] {
    const { power, market, portfolio } = this.sources;
    return [
      ...(power ? [...E.POWER_ENTITIES, ...ALL_WINDOW_ENTITIES, ...E.COST_ENTITIES] : []),
      ...(market ? [...E.BTC_ENTITIES, ...E.QUOTE_ENTITIES] : []),
      ...(portfolio ? E.PORTFOLIO_ENTITIES : []),
    ];
  }

  /**
   * Called when the household's charges become known or change, with the way to stop: the
   * figures made with them are read again then, not at the next quarter hour.
   */
  onChargesChanged(listener: () => void): () => void {
    return this.sources.power?.prices.onChargesChanged(listener) ?? (() => {});
  }

  /** Spot and consumer price now with today's and tomorrow's intervals, the cheapest 3 hours, tomorrow's publication. */
  async power(): Promise<Update[]> {
    const power = this.sources.power;
    if (!power) return [];
    const { prices, costs } = power;
    const now = this.deps.clock.now();
    const today = danishDate(now);
    const tomorrow = addDays(today, 1);
    const area = this.deps.area;
    const spot = async (day: string) =>
      JSON.parse((await prices.prices(day, area)).json.toString()) as PricesDay;
    const consumer = async (day: string) =>
      (await costs.consumerPrices(day, area, undefined, 'quarter')).body;
    // Without the household's charges these are unknown, not waited for: their arrival is an event.
    const charged = <T>(what: string, fn: () => Promise<T>) =>
      prices.charges.known ? this.read(what, fn) : Promise.resolve(null);
    const spotToday = await this.read('spot prices', () => spot(today));
    const spotTomorrow = await this.read('spot prices', () => spot(tomorrow));
    const consumerToday = await charged('consumer prices', () => consumer(today));
    const consumerTomorrow = await charged('consumer prices', () => consumer(tomorrow));
    const cheapest = S.cheapestStates(
      await charged('cheapest hours', () => costs.cheapest(3, undefined, area)),
    );
    return [
      {
        entity: E.SPOT_PRICE,
        state: S.spotNow(spotToday, now),
        attributes: dayAttributes(spotDay(spotToday), spotDay(spotTomorrow), 4),
      },
      {
        entity: E.CONSUMER_PRICE,
        state: S.consumerNow(consumerToday, now),
        attributes: dayAttributes(consumerDay(consumerToday), consumerDay(consumerTomorrow), 4),
      },
      { entity: E.CHEAPEST_START, state: cheapest.start },
      { entity: E.CHEAPEST_PRICE, state: cheapest.price },
      { entity: E.TOMORROW_PUBLISHED, state: S.publishedState(spotTomorrow) },
    ];
  }

  /** The windows Home Assistant set (their numbers, the windows found, whether now is in them). */
  async windows(settings: WindowSettings): Promise<Update[]> {
    return this.windowReader ? this.windowReader.windows(settings) : [];
  }

  /** The CO₂ intensity now, its day's intervals in the attributes. */
  async co2(): Promise<Update[]> {
    return this.windowReader ? this.windowReader.co2() : [];
  }

  /**
   * What the metered electricity cost on the last day metered whole (metering comes a day or
   * more late, so never a 0 for yesterday without readings) and this month through that day.
   */
  async costs(): Promise<Update[]> {
    const power = this.sources.power;
    if (!power) return [];
    const { costs, prices } = power;
    const today = danishDate(this.deps.clock.now());
    const first = `${today.slice(0, 8)}01`;
    const last = prices.charges.known ? await this.read('costs', () => costs.lastMeteredDay()) : null;
    const day = last === null ? null : await this.read('costs', () => costs.costs(last, last));
    const through = last !== null && last >= first ? last : null;
    const month = through === null ? null : await this.read('costs', () => costs.costs(first, through));
    const since = (d: string) => toDanishIso(danishDayBounds(d).start);
    const lastDay = S.lastDayCost(day, last === null ? null : since(last));
    const thisMonth = S.monthCost(month, since(first), first);
    return [
      { entity: E.COST_YESTERDAY, state: lastDay.state, attributes: lastDay.attributes },
      { entity: E.COST_MONTH, state: thisMonth.state, attributes: thisMonth.attributes },
    ];
  }

  async btc(): Promise<Update[]> {
    const market = this.sources.market;
    if (!market) return [];
    const s = S.btcStates(await this.read('spot price', () => market.latestPrice()));
    return [
      { entity: E.BTC_EUR, state: s.eur },
      { entity: E.BTC_DKK, state: s.dkk },
      { entity: E.BTC_USD, state: s.usd },
    ];
  }

  async quote(): Promise<Update[]> {
    const market = this.sources.market;
    if (!market) return [];
    const s = S.quoteStates(await this.read('quote', () => market.latestQuote()));
    return [
      { entity: E.QUOTE_SATS, state: s.sats },
      { entity: E.BROKER_PREMIUM, state: s.premium },
    ];
  }

  async portfolio(): Promise<Update[]> {
    const portfolio = this.sources.portfolio;
    if (!portfolio) return [];
    const answer = await this.read('portfolio', () => portfolio.portfolio());
    const s = S.portfolioStates(answer);
    return [
      { entity: E.PORTFOLIO_VALUE, state: s.value },
      { entity: E.PORTFOLIO_SATS, state: s.sats },
      { entity: E.UNREALIZED_PNL, state: s.pnl },
    ];
  }

  /**
   * Each watched wallet's difference from the chain in sats, unknown before its first scan; null
   * when the wallets could not be read (which is not a wallet fewer).
   */
  async chain(): Promise<Update[] | null> {
    const chain = this.sources.chain;
    if (!chain) return [];
    const wallets = await this.read('chain differences', () => chain.differences());
    if (wallets === null) return null;
    return wallets.map((w) => ({
      entity: E.chainDifferenceEntity(w.wallet, w.name),
      state: S.text(w.difference_sats),
    }));
  }

  /** No answer yet (no price stored, a provider down, the database away) makes the figure unknown. */
  private async read<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (e) {
      this.deps.log.debug({ err: (e as Error).message }, `mqtt: no ${what} to publish`);
      return null;
    }
  }
}
