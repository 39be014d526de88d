import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import type { OnBusy } from '../../providers/budget.js';
import type { MeteringPoint, MeteringPointCharges } from '../../providers/eloverblik.js';
import type { TariffRecord } from '../../providers/energidataservice.js';
import { chargeRefusal } from '../../providers/plausible.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate } from '../../shared/danish-time.js';
import { chargeListings, type ChargeListingRow } from '../metering/repository.js';
import { storeMeterListing } from '../metering/service.js';
import { applyHouseholdTariffs } from '../prices/repository.js';
import { gridCompany } from '../../shared/grid-companies.js';
import { chargeKey, fromConfig, fromMeter, type MeterLink } from './build.js';
import { CHARGE_TYPE, type ChargeKind, type HouseholdCharge } from './periods.js';
import type { ChargesReadiness } from './readiness.js';
import * as repo from './repository.js';

export type PricelistFilter = {
  GLN_Number: string[];
  ChargeType: string[];
  Note?: string[];
  ChargeTypeCode?: string[];
};

export interface HouseholdDeps {
  db: Db;
  pricelist: (filter: PricelistFilter, signal?: AbortSignal, onBusy?: OnBusy) => Promise<TariffRecord[]>;
  /** The household's metering point; `available` is false without a metering token. */
  meter: {
    available(): Promise<boolean>;
    meteringPoints(signal?: AbortSignal): Promise<MeteringPoint[]>;
    charges(ids: string[], signal?: AbortSignal): Promise<MeteringPointCharges[]>;
  };
  config: { gridCompanyGln: string | null; gridTariffNotes: readonly string[] | null; energinetGln: string };
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** Called when stored hours took other tariffs, or the charges became known: derived answers cached elsewhere are stale. */
  onChanged: () => void;
  /** Whether the charges are known; a refresh makes them so, and a first start waits for one. */
  readiness: ChargesReadiness;
}

/** Where the household's grid tariff comes from, for /health, /api/consumer-prices and the page. */
export interface HouseholdStatus {
  configured: boolean;
  source: 'meter' | 'config' | null;
  grid_company: { gln: string; name: string | null } | null;
  detail: string;
}

export interface RefreshResult {
  source: 'meter' | 'config';
  charges: number;
  changed: number;
}

const ENERGINET_CODES = ['40000', '41000', 'EA-001'];

/**
 * The household's charges: from its own meter when a metering token is there (every tariff,
 * subscription and fee its metering points list, with their history from DatahubPricelist),
 * else from GRID_COMPANY_GLN (the shipped notes of its household tariff) and Energinet's codes.
 */
export class HouseholdService {
  private status: HouseholdStatus;

  constructor(private readonly deps: HouseholdDeps) {
    const gln = deps.config.gridCompanyGln;
    this.status = gln
      ? {
          configured: true,
          source: 'config',
          grid_company: { gln, name: gridCompany(gln)?.name ?? null },
          detail: 'not loaded yet',
        }
      : {
          configured: false,
          source: null,
          grid_company: null,
          detail:
            'grid company not configured: set METERING_TOKEN (the meter lists its charges) or GRID_COMPANY_GLN',
        };
  }

  current(): HouseholdStatus {
    return this.status;
  }

  get readiness(): ChargesReadiness {
    return this.deps.readiness;
  }

  /** Reloads the charges (provider calls outside the transaction) and gives every stored hour its tariffs. */
  async refresh(): Promise<RefreshResult> {
    const { readiness } = this.deps;
    const first = !readiness.known;
    readiness.loading();
    let result: RefreshResult;
    try {
      const viaMeter = await this.deps.meter.available();
      const charges = viaMeter ? await this.loadFromMeter() : await this.loadFromConfig();
      const changed = await this.deps.db.transaction().execute(async (trx) => {
        await repo.deleteHouseholdCharges(trx);
        await repo.insertHouseholdCharges(trx, charges);
        return applyHouseholdTariffs(trx);
      });
      await this.describe(viaMeter ? 'meter' : 'config', charges);
      result = { source: viaMeter ? 'meter' : 'config', charges: charges.length, changed };
    } catch (e) {
      readiness.failed(e);
      throw e;
    }
    readiness.ready();
    if (result.changed > 0 || first) this.deps.onChanged();
    return result;
  }

  /**
   * Gives stored hours the tariffs of the charges stored now (at start, before any provider
   * answers). Charges an earlier refresh stored are known at once; without any, the first
   * refresh is waited for. Returns whether any were stored.
   */
  async apply(): Promise<boolean> {
    await repo.deleteOtherConfiguredGrid(this.deps.db, this.deps.config.gridCompanyGln);
    const changed = await applyHouseholdTariffs(this.deps.db);
    if (changed > 0) this.deps.onChanged();
    const stored = await repo.hasHouseholdCharges(this.deps.db);
    if (stored) this.deps.readiness.ready();
    const owners = await repo.householdGridOwners(this.deps.db);
    if (owners[0]?.source === 'meter')
      this.status = {
        configured: true,
        source: 'meter',
        grid_company: { gln: owners[0].owner_gln, name: owners[0].owner },
        detail: 'from the meter (stored)',
      };
    return stored;
  }

  /** Every charge in force on a Danish day. */
  async chargesOn(
    date: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ date: string; charges: repo.HouseholdChargeRow[] }> {
    await this.deps.readiness.need(signal);
    const day = date ?? danishDate(this.deps.clock.now());
    const rows = await repo.householdChargesBetween(
      this.deps.db,
      `${day}T00:00:00`,
      `${addDays(day, 1)}T00:00:00`,
    );
    return { date: day, charges: rows };
  }

  private async loadFromMeter(): Promise<HouseholdCharge[]> {
    const { db, signal, config } = this.deps;
    const points = await this.deps.meter.meteringPoints(signal);
    const listed = await this.deps.meter.charges(
      points.map((p) => p.id),
      signal,
    );
    await db.transaction().execute((trx) => storeMeterListing(trx, points, listed));
    // Listings stored before their bounds were checked at the provider are judged again here.
    const links = (await chargeListings(db)).map(meterLink).filter((l) => {
      const why = chargeRefusal({ kind: l.kind, name: l.name, ownerGln: l.ownerGln, prices: l.prices });
      if (why) this.deps.log.warn({ why }, 'household charges: a stored listing of the meter is left out');
      return why === null;
    });
    // One DatahubPricelist request per owner and charge type, asking for every name the meter lists.
    const asked = new Map<string, { gln: string; kind: ChargeKind; names: Set<string> }>();
    for (const l of links) {
      const key = `${l.ownerGln}|${l.kind}`;
      const entry = asked.get(key) ?? { gln: l.ownerGln, kind: l.kind, names: new Set<string>() };
      entry.names.add(l.name);
      asked.set(key, entry);
    }
    const history = new Map<string, TariffRecord[]>();
    for (const { gln, kind, names } of asked.values()) {
      const records = await this.deps.pricelist(
        { GLN_Number: [gln], ChargeType: [CHARGE_TYPE[kind]], Note: [...names] },
        signal,
      );
      for (const r of records) {
        if (r.note === null || r.note === undefined || !names.has(r.note)) continue;
        if (r.chargeType && r.chargeType !== CHARGE_TYPE[kind]) continue;
        const key = chargeKey(gln, kind, r.note);
        history.set(key, [...(history.get(key) ?? []), r]);
      }
    }
    return fromMeter(links, history, config.energinetGln);
  }

  private async loadFromConfig(): Promise<HouseholdCharge[]> {
    const { config, signal } = this.deps;
    const energinet = await this.deps.pricelist(
      { GLN_Number: [config.energinetGln], ChargeType: ['D03'], ChargeTypeCode: ENERGINET_CODES },
      signal,
    );
    const gln = config.gridCompanyGln;
    if (gln === null) return fromConfig(null, [], energinet, config.energinetGln);
    const company = gridCompany(gln);
    const notes = config.gridTariffNotes ?? company?.notes ?? [];
    let grid = (
      await this.deps.pricelist({ GLN_Number: [gln], ChargeType: ['D03'], Note: [...notes] }, signal)
    ).filter((r) => r.note === null || r.note === undefined || notes.includes(r.note));
    const today = `${danishDate(this.deps.clock.now())}T00:00:00`;
    const coversToday = (rs: TariffRecord[]) =>
      rs.some((r) => r.validFrom <= today && (r.validTo === null || r.validTo > today));
    // No record under the notes covers today: the codes the public lists name, when they were not overridden.
    if (!coversToday(grid) && config.gridTariffNotes === null && company && company.codes.length > 0) {
      const byCode = await this.deps.pricelist(
        { GLN_Number: [gln], ChargeType: ['D03'], ChargeTypeCode: company.codes },
        signal,
      );
      if (coversToday(byCode)) grid = byCode;
    }
    return fromConfig({ gln, name: company?.name ?? gln }, grid, energinet, config.energinetGln);
  }

  private async describe(source: 'meter' | 'config', charges: HouseholdCharge[]) {
    const grid = charges.filter((c) => c.role === 'grid' && c.kind === 'tariff');
    const today = `${danishDate(this.deps.clock.now())}T00:00:00`;
    const inForce = grid.filter((c) => c.validFrom <= today && (c.validTo === null || c.validTo > today));
    const latest = [...grid].sort((a, b) => (a.validFrom < b.validFrom ? 1 : -1))[0];
    if (source === 'config' && this.deps.config.gridCompanyGln === null) return;
    const gln = source === 'meter' ? (latest?.ownerGln ?? null) : this.deps.config.gridCompanyGln;
    this.status = {
      configured: gln !== null,
      source,
      grid_company: gln === null ? null : { gln, name: latest?.owner ?? gridCompany(gln)?.name ?? null },
      detail:
        inForce.length > 0
          ? `${inForce.map((c) => `${c.name} (${c.code ?? 'meter prices'})`).join(', ')} in force today`
          : source === 'meter'
            ? 'the meter lists no grid tariff in force today'
            : 'DatahubPricelist has no record of the grid tariff under its notes in force today; set GRID_TARIFF_NOTES',
    };
    if (inForce.length === 0) this.deps.log.warn({ gln, source }, this.status.detail);
  }
}

/** A charge the meter listed, applying to production when its point is the production point (E18). */
function meterLink(r: ChargeListingRow): MeterLink {
  return {
    kind: r.kind,
    appliesTo: r.type_of_mp === 'E18' ? 'production' : 'consumption',
    name: r.name,
    ownerGln: r.owner_gln,
    periodType: r.period_type,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    prices: r.prices ?? [],
  };
}
