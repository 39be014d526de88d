import type { TariffRecord } from '../../providers/energidataservice.js';
import { gridCompany, type GridCompany } from '../../shared/grid-companies.js';
import {
  WHOLE,
  localTime,
  pricesOf,
  roleOf,
  segments,
  type AppliesTo,
  type ChargeKind,
  type HouseholdCharge,
  type Window,
} from './periods.js';

/** A charge the household's metering point lists (getcharges), as stored at every read: its link's dates and current prices. */
export interface MeterLink {
  kind: ChargeKind;
  appliesTo: AppliesTo;
  name: string;
  ownerGln: string;
  periodType: string | null;
  validFrom: Date;
  validTo: Date | null;
  /** DKK excl. VAT by position (24 hourly, or one for a flat tariff, a subscription or a fee). */
  prices: string[];
}

export const chargeKey = (ownerGln: string, kind: ChargeKind, name: string) => `${ownerGln}|${kind}|${name}`;

/** Energinet's name as DatahubPricelist writes it, for its charges that the pricelist lacks. */
const ENERGINET_NAME = 'Energinet Systemansvar A/S (SYO)';

/**
 * The name of each owner (by GLN): as any of its records in DatahubPricelist writes it, else the
 * shipped list of grid companies, else Energinet's. The meter lists owners by GLN only, so a
 * charge the pricelist lacks (a subscription, a balance tariff) is named by its owner's others.
 */
function ownerNames(
  history: Map<string, TariffRecord[]>,
  energinetGln: string,
): (gln: string) => string | null {
  const named = new Map<string, string>();
  for (const records of history.values())
    for (const r of records) if (r.owner && !named.has(r.gln)) named.set(r.gln, r.owner);
  return (gln) => named.get(gln) ?? gridCompany(gln)?.name ?? (gln === energinetGln ? ENERGINET_NAME : null);
}

/**
 * The household's charges from what its meter lists and the history DatahubPricelist holds for
 * each (by owner, charge type and Note = name). Energinet's charges take their whole history. A
 * grid company's charges hold from the household's first link to it until the next company's
 * first link, so a change of grid company keeps the old one's history with its dates. A charge
 * DatahubPricelist lacks keeps the meter's prices from its link's validFromDate.
 */
export function fromMeter(
  links: MeterLink[],
  history: Map<string, TariffRecord[]>,
  energinetGln: string,
): HouseholdCharge[] {
  const owners = windowsByOwner(links, energinetGln);
  const nameOf = ownerNames(history, energinetGln);
  const groups = new Map<string, MeterLink[]>();
  for (const l of links) {
    const key = `${l.appliesTo}|${chargeKey(l.ownerGln, l.kind, l.name)}`;
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  const out: HouseholdCharge[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.validFrom.getTime() - b.validFrom.getTime());
    const first = group[0]!;
    const ends = group.map((l) => (l.validTo ? localTime(l.validTo) : null));
    const open = ends.some((e) => e === null);
    const ownerWindow = owners.get(first.ownerGln) ?? WHOLE;
    const window: Window = {
      from: ownerWindow.from,
      to: minTime(ownerWindow.to, open ? null : ends.sort().at(-1)!),
    };
    const records = history.get(chargeKey(first.ownerGln, first.kind, first.name)) ?? [];
    const base = {
      kind: first.kind,
      appliesTo: first.appliesTo,
      ownerGln: first.ownerGln,
      name: first.name,
      source: 'meter' as const,
    };
    const owner = records.find((r) => r.owner)?.owner ?? nameOf(first.ownerGln);
    const found = segments(records, window);
    if (found.length > 0) {
      for (const s of found)
        out.push({
          ...base,
          role: roleOf(first.kind, first.ownerGln, energinetGln, s.code, first.name),
          owner,
          code: s.code,
          pricesFrom: 'DatahubPricelist',
          validFrom: s.validFrom,
          validTo: s.validTo,
          resolution: first.kind === 'tariff' ? s.resolution : (records[0]?.resolution ?? 'P1M'),
          prices: pricesOf(first.kind, s.prices),
        });
      continue;
    }
    group.forEach((l, i) => {
      const from = maxTime(window.from, localTime(l.validFrom))!;
      const to = minTime(
        minTime(window.to, ends[i] ?? null),
        group[i + 1] ? localTime(group[i + 1]!.validFrom) : null,
      );
      if (to !== null && to <= from) return;
      const hourly = l.prices.length === 24 ? l.prices : Array.from({ length: 24 }, () => l.prices[0] ?? '0');
      out.push({
        ...base,
        role: roleOf(l.kind, l.ownerGln, energinetGln, null, l.name),
        owner,
        code: null,
        pricesFrom: 'meter',
        validFrom: from,
        validTo: to,
        resolution: l.kind === 'tariff' ? (l.prices.length === 24 ? 'PT1H' : 'P1D') : 'P1M',
        prices: pricesOf(l.kind, hourly),
      });
    });
  }
  return out;
}

/** Each grid company's time: from its first link (the earliest company: all its history) to the next company's first. */
function windowsByOwner(links: MeterLink[], energinetGln: string): Map<string, Window> {
  const firstLink = new Map<string, string>();
  for (const l of links) {
    if (l.ownerGln === energinetGln) continue;
    const t = localTime(l.validFrom);
    const known = firstLink.get(l.ownerGln);
    if (known === undefined || t < known) firstLink.set(l.ownerGln, t);
  }
  const order = [...firstLink.entries()].sort((a, b) => (a[1] < b[1] ? -1 : 1));
  return new Map(
    order.map(([gln, from], i) => [gln, { from: i === 0 ? null : from, to: order[i + 1]?.[1] ?? null }]),
  );
}

/**
 * The charges of a configured grid company (GRID_COMPANY_GLN, its notes) and Energinet's, without
 * a meter: the grid tariff is every record found under the notes, Energinet's by their codes.
 */
export function fromConfig(
  company: Pick<GridCompany, 'gln' | 'name'> | null,
  gridRecords: TariffRecord[],
  energinetRecords: TariffRecord[],
  energinetGln: string,
): HouseholdCharge[] {
  const out: HouseholdCharge[] = [];
  if (company) {
    const name = gridRecords.find((r) => r.note)?.note ?? 'Nettarif C';
    for (const s of segments(gridRecords))
      out.push({
        kind: 'tariff',
        role: 'grid',
        appliesTo: 'consumption',
        ownerGln: company.gln,
        owner: gridRecords.find((r) => r.owner)?.owner ?? company.name,
        name,
        code: s.code,
        source: 'config',
        pricesFrom: 'DatahubPricelist',
        validFrom: s.validFrom,
        validTo: s.validTo,
        resolution: s.resolution,
        prices: s.prices,
      });
  }
  const byCode = new Map<string, TariffRecord[]>();
  for (const r of energinetRecords)
    byCode.set(r.chargeTypeCode, [...(byCode.get(r.chargeTypeCode) ?? []), r]);
  for (const [code, records] of byCode) {
    const name = records.find((r) => r.note)?.note ?? code;
    for (const s of segments(records))
      out.push({
        kind: 'tariff',
        role: roleOf('tariff', energinetGln, energinetGln, code, name),
        appliesTo: 'consumption',
        ownerGln: energinetGln,
        owner: records.find((r) => r.owner)?.owner ?? ENERGINET_NAME,
        name,
        code: s.code,
        source: 'config',
        pricesFrom: 'DatahubPricelist',
        validFrom: s.validFrom,
        validTo: s.validTo,
        resolution: s.resolution,
        prices: s.prices,
      });
  }
  return out;
}

function minTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

function maxTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
