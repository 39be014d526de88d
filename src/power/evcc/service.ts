import { Big } from 'big.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate, danishDayBounds } from '../../shared/danish-time.js';
import { conflict, unavailable } from '../../shared/refusal.js';
import { meanGKwh, type Co2Service } from '../co2/service.js';
import { num } from '../costs/pricing.js';
import type { HouseholdStatus } from '../household/service.js';
import type { WindowService } from '../windows/service.js';
import { QUARTER_MS, floorQuarter } from '../windows/search.js';
import { feedInTariffs } from '../household/repository.js';
import type { EvccRate } from './schemas.js';

export interface EvccDeps {
  db: Db;
  clock: Clock;
  windows: Pick<WindowService, 'priceQuarters'>;
  co2: Pick<Co2Service, 'quarters' | 'needCurrent'>;
  household: () => HouseholdStatus;
  config: Pick<Config, 'priceArea'>;
}

const HOUR_MS = 3_600_000;

/** `YYYY-MM-DDTHH:MM:SSZ`, the form evcc's custom tariff reads. */
const utc = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
const rate = (start: number, value: number): EvccRate => ({
  start: utc(start),
  end: utc(start + QUARTER_MS),
  value,
});

/**
 * The forecasts evcc's custom tariffs read (`forecast: source: http`): one rate per quarter hour
 * from the current one to the last one known, UTC times. A quarter hour whose value is not known
 * is left out, never guessed.
 */
export class EvccService {
  constructor(private readonly deps: EvccDeps) {}

  /** The all-in price of a kWh taken from the grid incl. VAT, DKK/kWh. */
  async grid(area: string | undefined, signal?: AbortSignal): Promise<EvccRate[]> {
    const quarters = await this.priced(area, signal);
    const priced = quarters.filter((q) => q.total !== null);
    if (priced.length === 0 && quarters.length > 0) {
      const status = this.deps.household();
      if (!status.configured)
        throw conflict(`the all-in price needs the household's charges: ${status.detail}`);
      throw unavailable(
        `the household's charges are not known for these quarter hours yet (${status.detail})`,
        60,
      );
    }
    return priced.map((q) => rate(q.start, num(q.total)!));
  }

  /**
   * What a kWh supplied to the grid earns, DKK/kWh: the spot price less the tariffs the
   * household's meter lists for its production (none without a meter). No VAT: a household
   * selling its surplus charges none.
   */
  async feedIn(area: string | undefined, signal?: AbortSignal): Promise<EvccRate[]> {
    const quarters = await this.priced(area, signal);
    if (quarters.length === 0) return [];
    const first = Math.floor(quarters[0]!.start / HOUR_MS) * HOUR_MS;
    const last = Math.floor(quarters.at(-1)!.start / HOUR_MS) * HOUR_MS + HOUR_MS;
    const tariffs = new Map(
      (await feedInTariffs(this.deps.db, new Date(first), new Date(last))).map((r) => [
        r.hour.getTime(),
        new Big(r.dkk_kwh),
      ]),
    );
    return quarters.map((q) => {
      const charge = tariffs.get(Math.floor(q.start / HOUR_MS) * HOUR_MS) ?? new Big(0);
      return rate(q.start, num(q.spot.minus(charge))!);
    });
  }

  /** The CO₂ intensity, g/kWh: each quarter hour's mean of its 5-minute values, realized or forecast. */
  async co2(area: string | undefined, signal?: AbortSignal): Promise<EvccRate[]> {
    const now = this.deps.clock.now();
    const from = floorQuarter(now.getTime());
    const to = danishDayBounds(addDays(danishDate(now), 3)).start;
    const quarters = await this.deps.co2.quarters(
      area ?? this.deps.config.priceArea,
      new Date(from),
      to,
      signal,
    );
    if (quarters.length === 0) await this.deps.co2.needCurrent();
    return quarters.map((q) => rate(q.start.getTime(), Number(meanGKwh(q.sum, q.values).toString())));
  }

  /** The priced quarter hours from the current one to the end of tomorrow, the last day published. */
  private async priced(area: string | undefined, signal?: AbortSignal) {
    const now = this.deps.clock.now();
    const from = floorQuarter(now.getTime());
    const to = danishDayBounds(addDays(danishDate(now), 2)).start.getTime();
    const { quarters } = await this.deps.windows.priceQuarters(
      area ?? this.deps.config.priceArea,
      from,
      to,
      signal,
    );
    return quarters;
  }
}
