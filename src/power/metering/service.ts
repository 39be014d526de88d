import type { Kysely } from 'kysely';
import type { DB, Db } from '../../db/schema.js';
import { invalid } from '../../shared/refusal.js';
import type { Logger } from 'pino';
import {
  RefusedCharges,
  type EloverblikClient,
  type MeteringPoint,
  type MeteringPointCharges,
  type TimeSeries,
} from '../../providers/eloverblik.js';
import { either, untilAborted } from '../../shared/abort.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate, danishDayBounds, toDanishIso } from '../../shared/danish-time.js';
import * as repo from './repository.js';
import type { EnergyTable } from './repository.js';
import type { HourlyEnergyTable, MeterReadingsTable } from './tables.js';

export type SyncStatus = 'no data to fetch' | 'already synced' | 'synced';

export interface SyncResult {
  date: string;
  status: SyncStatus;
  /** Rows inserted by this sync. */
  production: number;
  consumption: number;
}

export interface EnergyRow {
  metering_point_id: string;
  time_dk: string;
  resolution_minutes: number;
  quantity_kwh: number;
  quality: string | null;
}

export interface MeteringDeps {
  db: Kysely<DB>;
  client: EloverblikClient;
  clock: Clock;
  shutdown?: AbortSignal;
  log?: Logger;
}

/** Production is what the D06 meter delivers to the grid, consumption what the D07 meter takes from it. */
const PRODUCTION_TYPE = 'D06';
const CONSUMPTION_TYPE = 'D07';

export type Energy = 'production' | 'consumption';
const TABLES: Record<Energy, EnergyTable> = {
  production: 'power.production',
  consumption: 'power.consumption',
};

function outcome(date: string, status: SyncStatus, production = 0, consumption = 0): SyncResult {
  return { date, status, production, consumption };
}

export class MeteringService {
  /** The day each sync in progress is fetching, and whose request (if any) it runs for. */
  private readonly inFlight = new Map<string, { work: Promise<SyncResult>; request?: AbortSignal }>();

  constructor(private readonly deps: MeteringDeps) {}

  /**
   * Fetches and stores one past Danish day. The provider is called outside the transaction
   * (the embedded database has one connection); the writes happen in one transaction under
   * an advisory lock of the date, which re-checks, so concurrent syncs store everything once.
   * A sync of a day already being fetched in this process (the daily catch-up, a job, another
   * request) waits for that one and answers its result; `request` ends only this caller's wait.
   */
  async sync(date?: string, request?: AbortSignal): Promise<SyncResult> {
    const today = danishDate(this.deps.clock.now());
    const day = date ?? today;
    if (day >= addDays(today, -1)) return outcome(day, 'no data to fetch');
    const first = firstAvailableDay(today);
    if (day < first)
      throw invalid(
        `querystring.date: ${day} is before ${first}; Eloverblik keeps only the last 5 years and the current one`,
      );
    for (;;) {
      const running = this.inFlight.get(day);
      if (!running) break;
      try {
        return await untilAborted(running.work, request);
      } catch (e) {
        // the request it ran for gave up: this caller, still waiting, fetches the day itself
        if (request?.aborted || !running.request?.aborted) throw e;
      }
    }
    const work = this.fetchAndStore(day, request).finally(() => {
      if (this.inFlight.get(day)?.work === work) this.inFlight.delete(day);
    });
    this.inFlight.set(day, { work, request });
    return work;
  }

  private async fetchAndStore(day: string, request: AbortSignal | undefined): Promise<SyncResult> {
    const { db, client } = this.deps;
    const { start, end } = danishDayBounds(day);
    if (await repo.hasConsumptionBetween(db, start, end)) return outcome(day, 'already synced');

    const signal = this.deps.shutdown ? either(this.deps.shutdown, request) : request;
    // The household's own request waits for the provider's budget ahead of the background work,
    // never refused for our own load; a command and the daily catch-up wait behind it.
    const onBusy = request ? 'owner' : 'wait';
    const points = await client.meteringPoints(signal, onBusy);
    const all = points.flatMap((p) => [
      { id: p.id, type: p.type, readingOccurrence: p.readingOccurrence },
      ...p.children,
    ]);
    // Readings at each point's own resolution: a quarter-hour point is asked for its quarters.
    const series: TimeSeries[] = [];
    for (const aggregation of ['Hour', 'Quarter'] as const) {
      const ids = all
        .filter((p) => (p.readingOccurrence === 'PT15M') === (aggregation === 'Quarter'))
        .map((p) => p.id);
      if (ids.length > 0)
        series.push(...(await client.timeSeries(ids, day, addDays(day, 1), aggregation, signal, onBusy)));
    }
    // Charges belong to the parent points; the provider refuses child points (error 20009). An
    // implausible charges answer (counted in /health) is left out: the day's readings are stored.
    let charges: MeteringPointCharges[] = [];
    try {
      charges = await client.charges(
        points.map((p) => p.id),
        signal,
        onBusy,
      );
    } catch (e) {
      if (!(e instanceof RefusedCharges)) throw e;
      this.deps.log?.warn(
        { day, why: e.why },
        'metering sync: the charges answer was refused; readings stored without it',
      );
    }
    const typeOf = new Map(all.map((p) => [p.id, p.type]));
    const hasD07 = all.some((p) => p.type === CONSUMPTION_TYPE);
    const consumptionType = hasD07 ? CONSUMPTION_TYPE : 'E17';

    // A request out of time writes nothing rather than something its caller never hears of.
    signal?.throwIfAborted();
    const result = await db.transaction().execute(async (trx) => {
      await repo.lockSyncDate(trx, day);
      if (await repo.hasConsumptionBetween(trx, start, end)) return outcome(day, 'already synced');
      await storeMeterListing(trx, points, charges);
      await repo.upsertMeteringPoints(trx, points.flatMap(childRows));
      await repo.insertReadings(trx, readingRows(series));
      const hourly = (type: string) =>
        energyRows(series.filter((s) => typeOf.get(s.meteringPointId) === type));
      const production = await repo.insertEnergy(trx, TABLES.production, hourly(PRODUCTION_TYPE));
      const consumption = await repo.insertEnergy(trx, TABLES.consumption, hourly(consumptionType));
      if (production + consumption > 0) await repo.notifySynced(trx, day);
      return outcome(day, 'synced', production, consumption);
    });
    if (result.status === 'synced') await repo.analyzeEnergy(db);
    return result;
  }

  /**
   * Stored rows of a Danish day (the date defaults to today): `hour` sums each hour's quarters
   * (23, 24 or 25 rows a point), `quarter` gives every reading at its own resolution.
   */
  async energyOfDay(
    energy: Energy,
    date?: string,
    resolution: 'hour' | 'quarter' = 'hour',
  ): Promise<{ date: string; rows: EnergyRow[] }> {
    const db = this.deps.db;
    const table = TABLES[energy];
    const day = date ?? danishDate(this.deps.clock.now());
    const { start, end } = danishDayBounds(day);
    const rows =
      resolution === 'hour'
        ? await repo.energyHoursBetween(db, table, start, end)
        : await repo.energyBetween(db, table, start, end);
    return {
      date: day,
      rows: rows.map((r) => ({
        metering_point_id: r.metering_point_id,
        time_dk: toDanishIso(r.start_at),
        resolution_minutes: Number(r.resolution_minutes),
        quantity_kwh: Number(r.quantity_kwh),
        quality: r.quality,
      })),
    };
  }

  /** The last Danish day the daily sync stored, or null before its first. */
  lastSyncedDay(): Promise<string | null> {
    return repo.lastSyncedDay(this.deps.db);
  }

  /** Moves the last synced day forward, never back. */
  markSynced(day: string): Promise<void> {
    return repo.markSynced(this.deps.db, day);
  }
}

/** Eloverblik answers only the 5 years before the current one and the current year. */
export function firstAvailableDay(today: string): string {
  return `${Number(today.slice(0, 4)) - 5}-01-01`;
}

/**
 * Stores what the meter lists: its metering points (the master data is the provider's current
 * view) and each point's charges with their prices, a charge listed before kept as it is. The
 * daily sync and the household's refresh both store a listing through this, in their transaction.
 */
export async function storeMeterListing(
  trx: Db,
  points: MeteringPoint[],
  charges: MeteringPointCharges[],
): Promise<void> {
  await repo.upsertMeteringPoints(trx, points.map(parentRow));
  for (const mp of charges)
    for (const c of mp.charges) {
      const chargeId = await repo.insertCharge(trx, repo.chargeRow(mp.meteringPointId, c));
      if (chargeId === undefined) continue;
      await repo.insertChargePrices(
        trx,
        c.prices.map((p) => ({ charge_id: chargeId, position: p.position, price_dkk: p.priceDkk })),
      );
    }
}

function parentRow(p: MeteringPoint) {
  return {
    metering_point_id: p.id,
    parent_id: null,
    type_of_mp: p.type,
    settlement_method: p.settlementMethod,
    reading_occurrence: p.readingOccurrence,
    meter_number: p.meterNumber,
    postcode: p.postcode,
    city_name: p.cityName,
    balance_supplier_name: p.balanceSupplierName,
  };
}

function childRows(p: MeteringPoint) {
  return p.children.map((c) => ({
    metering_point_id: c.id,
    parent_id: c.parentId,
    type_of_mp: c.type,
    settlement_method: null,
    reading_occurrence: c.readingOccurrence,
    meter_number: c.meterNumber,
    postcode: p.postcode,
    city_name: p.cityName,
    balance_supplier_name: p.balanceSupplierName,
  }));
}

function readingRows(series: TimeSeries[]): MeterReadingsTable[] {
  return series.flatMap((s) =>
    s.periods.flatMap((p) =>
      p.points.map((pt) => ({
        metering_point_id: s.meteringPointId,
        start_at: pt.start,
        resolution: p.resolution,
        business_type: s.businessType,
        quantity_kwh: pt.quantityKwh,
        quality: pt.quality,
      })),
    ),
  );
}

const MINUTES: Record<string, number> = { PT1H: 60, PT15M: 15 };

/** Hour and quarter-hour points, each with its length; other resolutions are kept in meter_readings only. */
function energyRows(series: TimeSeries[]): HourlyEnergyTable[] {
  return series.flatMap((s) =>
    s.periods
      .filter((p) => MINUTES[p.resolution] !== undefined)
      .flatMap((p) =>
        p.points.map((pt) => ({
          metering_point_id: s.meteringPointId,
          start_at: pt.start,
          quantity_kwh: pt.quantityKwh,
          quality: pt.quality,
          resolution_minutes: MINUTES[p.resolution]!,
        })),
      ),
  );
}
