import { Big } from 'big.js';
import { DateTime } from 'luxon';
import type { TariffRecord } from '../../providers/energidataservice.js';
import { DANISH_ZONE } from '../../shared/danish-time.js';

export type ChargeKind = 'tariff' | 'subscription' | 'fee';
export type ChargeRole =
  'grid' | 'transmission' | 'system' | 'electricity_tax' | 'other' | 'subscription' | 'fee';
export type AppliesTo = 'consumption' | 'production';

/** One period of one of the household's charges; times are Danish wall-clock `yyyy-MM-ddTHH:mm:ss`. */
export interface HouseholdCharge {
  kind: ChargeKind;
  role: ChargeRole;
  appliesTo: AppliesTo;
  ownerGln: string;
  owner: string | null;
  name: string;
  code: string | null;
  source: 'meter' | 'config';
  pricesFrom: 'DatahubPricelist' | 'meter';
  validFrom: string;
  validTo: string | null;
  /** PT1H or P1D for tariffs (always 24 values), P1M or P1D for subscriptions and fees (one value). */
  resolution: string;
  prices: string[];
}

/** A segment of a charge's history: the code(s) in force and their prices. */
export interface Segment {
  code: string;
  validFrom: string;
  validTo: string | null;
  prices: string[];
  resolution: string;
}

export interface Window {
  from: string | null;
  to: string | null;
}

export const WHOLE: Window = { from: null, to: null };

/** DatahubPricelist's charge types. */
export const CHARGE_TYPE: Record<ChargeKind, string> = { subscription: 'D01', fee: 'D02', tariff: 'D03' };

/** Energinet's codes and what each is on the bill. */
const ENERGINET_ROLES: Record<string, ChargeRole> = {
  '40000': 'transmission',
  '41000': 'system',
  'EA-001': 'electricity_tax',
};

export const localTime = (instant: Date): string =>
  DateTime.fromJSDate(instant, { zone: DANISH_ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ss");

/** A discount (a code DSOs publish beside the tariff, usually suffixed R) is never above zero. */
const isDiscount = (r: TariffRecord) => r.hourly.every((p) => new Big(p).lte(0));

/**
 * Cuts a charge's records into consecutive segments at every ValidFrom and ValidTo inside the
 * window: each takes the base record starting last that covers it (a newer record, or a renamed
 * code, replaces an older one) plus, per discount code, the discount starting last that covers
 * it. Adjacent segments with the same code and prices are joined, so a DSO that publishes one
 * record a day becomes a few periods.
 */
export function segments(records: TariffRecord[], window: Window = WHOLE): Segment[] {
  const inside = (t: string) =>
    (window.from === null || t > window.from) && (window.to === null || t < window.to);
  const points = [
    ...new Set([
      ...(window.from === null ? [] : [window.from]),
      ...records.flatMap((r) => [r.validFrom, ...(r.validTo ? [r.validTo] : [])]).filter(inside),
    ]),
  ].sort();
  const bases = records.filter((r) => !isDiscount(r));
  const discounts = records.filter(isDiscount);
  const latest = (list: TariffRecord[], at: string) =>
    list
      .filter((r) => r.validFrom <= at && (r.validTo === null || r.validTo > at))
      .reduce<TariffRecord | undefined>(
        (best, r) => (best && best.validFrom >= r.validFrom ? best : r),
        undefined,
      );
  const out: Segment[] = [];
  points.forEach((from, i) => {
    const base = latest(bases, from);
    const extra = [...new Set(discounts.map((d) => d.chargeTypeCode))]
      .map((code) =>
        latest(
          discounts.filter((d) => d.chargeTypeCode === code),
          from,
        ),
      )
      .filter((d): d is TariffRecord => d !== undefined);
    const parts = [...(base ? [base] : []), ...extra];
    if (parts.length === 0) return;
    let to = points[i + 1] ?? null;
    if (to === null && window.to !== null) to = window.to;
    const prices = Array.from({ length: 24 }, (_, h) =>
      parts.reduce((sum, r) => sum.plus(r.hourly[h] ?? r.hourly[0]!), new Big(0)).toString(),
    );
    const segment = {
      code: parts.map((r) => r.chargeTypeCode).join('+'),
      validFrom: from,
      validTo: to,
      prices,
      resolution: parts.some((r) => r.resolution === 'PT1H') ? 'PT1H' : (parts[0]!.resolution ?? 'PT1H'),
    };
    const last = out.at(-1);
    if (
      last &&
      last.validTo === from &&
      last.code === segment.code &&
      last.prices.every((p, h) => new Big(p).eq(segment.prices[h]!))
    )
      last.validTo = segment.validTo;
    else out.push(segment);
  });
  return out;
}

/** A tariff's role by its owner and its code (Energinet's three are known by code), else by its name. */
export function roleOf(
  kind: ChargeKind,
  ownerGln: string,
  energinetGln: string,
  code: string | null,
  name: string,
): ChargeRole {
  if (kind !== 'tariff') return kind;
  if (ownerGln !== energinetGln) return 'grid';
  const byCode = code === null ? undefined : ENERGINET_ROLES[code.split('+')[0]!];
  if (byCode) return byCode;
  if (/^transmissions?\s*nettarif/i.test(name)) return 'transmission';
  if (/^systemtarif/i.test(name)) return 'system';
  if (/elafgift/i.test(name)) return 'electricity_tax';
  return 'other';
}

/** Tariffs keep 24 hourly values; subscriptions and fees the one amount of their period. */
export function pricesOf(kind: ChargeKind, hourly: string[]): string[] {
  return kind === 'tariff' ? hourly : [hourly[0]!];
}
