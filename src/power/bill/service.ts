import { Big } from 'big.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate, danishDayBounds } from '../../shared/danish-time.js';
import { invalid } from '../../shared/refusal.js';
import type { ChargesReadiness } from '../household/readiness.js';
import { subscriptionsDuring } from '../household/repository.js';
import * as repo from './repository.js';
import type { Bill, BillLine } from './schemas.js';

export const FIRST_MONTH = '2013-01';

export interface BillDeps {
  db: Db;
  clock: Clock;
  /** Fetches the day-ahead prices of days not stored, inside the provider's budget (ElectricityPriceService.fillDays). */
  fillDays: (days: string[], signal?: AbortSignal) => Promise<void>;
  /** Every line but the spot price is one of the household's charges: billed only once they are known. */
  charges: Pick<ChargesReadiness, 'need'>;
  config: {
    priceArea: string;
    supplierMarkupDkkKwh: string;
    supplierSubscriptionDkkMonth: string;
    vatRate: string;
  };
}

/** Rounded to øre, half away from zero. */
const ore = (v: Big) => v.round(2, Big.roundHalfUp);

export class BillService {
  constructor(private readonly deps: BillDeps) {}

  /**
   * The month's bill: one line per charge over the metered consumption (spot at each interval's
   * own price, each tariff, the supplier's markup), one per subscription (prorated by the days it
   * is in force), the supplier's subscription, VAT on the subtotal. Each line is rounded to øre; the
   * subtotal and total are sums of rounded amounts. An interval without a price is counted and
   * left out, never priced at 0; `complete` is false then, or while any day has an interval without
   * a reading, and `missing_days` lists those days (every day still to come in the current month).
   */
  async monthBill(month: string, signal?: AbortSignal): Promise<Bill> {
    const deps = this.deps;
    const last = danishDate(deps.clock.now()).slice(0, 7);
    if (month < FIRST_MONTH || month > last)
      throw invalid(`querystring.month: ${month} is not from ${FIRST_MONTH} to ${last}`);
    await deps.charges.need(signal);
    const first = `${month}-01`;
    const next = addDays(`${month}-28`, 4).slice(0, 7) + '-01';
    const { config } = deps;
    const params = {
      start: danishDayBounds(first).start,
      end: danishDayBounds(addDays(next, -1)).end,
      area: config.priceArea,
      markup: config.supplierMarkupDkkKwh,
      vatRate: config.vatRate,
    };
    let totals = await repo.billTotals(deps.db, params);
    if (totals.usage.unpriced_days?.length) {
      // Days never fetched are fetched as /api/elprice does; whatever stays unpriced is counted.
      await deps.fillDays(totals.usage.unpriced_days, signal);
      totals = await repo.billTotals(deps.db, params);
    }
    const usage = totals.usage;
    const lines: BillLine[] = [];
    const priced = new Big(usage.priced_kwh);
    const kwhLine = (name: string, kind: BillLine['kind'], owner: string | null, kwh: Big, amount: Big) =>
      lines.push({
        name,
        kind,
        owner,
        kwh: Number(kwh.toString()),
        amount_dkk: Number(ore(amount).toString()),
      });
    kwhLine('Spot price', 'spot', null, priced, new Big(usage.spot_dkk));
    for (const t of totals.tariffs)
      kwhLine(t.name, 'tariff', t.owner ?? t.owner_gln, new Big(t.kwh), new Big(t.amount_dkk));
    if (!new Big(config.supplierMarkupDkkKwh).eq(0))
      kwhLine('Supplier markup', 'markup', null, priced, priced.times(config.supplierMarkupDkkKwh));
    const daysInMonth = (params.end.getTime() - params.start.getTime()) / 86_400_000;
    const monthDays = Math.round(daysInMonth);
    for (const s of await subscriptionsDuring(deps.db, first, next)) {
      const price = new Big(s.price_dkk);
      const amount = s.resolution === 'P1D' ? price.times(s.days) : price.times(s.days).div(monthDays);
      lines.push({
        name: s.name,
        kind: 'subscription',
        owner: s.owner ?? s.owner_gln,
        kwh: null,
        amount_dkk: Number(ore(amount).toString()),
      });
    }
    if (!new Big(config.supplierSubscriptionDkkMonth).eq(0))
      lines.push({
        name: 'Supplier subscription',
        kind: 'subscription',
        owner: null,
        kwh: null,
        amount_dkk: Number(ore(new Big(config.supplierSubscriptionDkkMonth)).toString()),
      });
    const subtotal = lines.reduce((sum, l) => sum.plus(l.amount_dkk), new Big(0));
    const vat = ore(subtotal.times(config.vatRate));
    const missing: string[] = [];
    for (let day = first; day < next; day = addDays(day, 1)) {
      const { start, end } = danishDayBounds(day);
      if (Number(usage.day_minutes[day] ?? 0) !== (end.getTime() - start.getTime()) / 60_000)
        missing.push(day);
    }
    return {
      month,
      area: config.priceArea,
      complete: missing.length === 0 && usage.intervals === usage.intervals_priced,
      missing_days: missing,
      consumption_kwh: Number(usage.consumption_kwh),
      intervals: Number(usage.intervals),
      intervals_priced: Number(usage.intervals_priced),
      lines,
      subtotal_dkk: Number(subtotal.toString()),
      vat_dkk: Number(vat.toString()),
      total_dkk: Number(subtotal.plus(vat).toString()),
    };
  }
}
