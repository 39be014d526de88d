import { DateTime } from 'luxon';
import { DANISH_ZONE } from '../shared/danish-time.js';
import { storableText } from '../shared/text.js';
import type { Static } from 'typebox';
import { malformed } from './answer.js';
import {
  ChargesAnswer,
  MeteringPoints,
  Outcome,
  STEP,
  TimeSeriesAnswer,
  type Flat,
  type Period,
  type Tariff,
} from './eloverblik-answers.js';
import { ProviderError } from './http.js';
import { chargeRefusal } from './plausible.js';

const NAME = 'eloverblik';

export interface ChildMeteringPoint {
  id: string;
  parentId: string;
  type: string;
  readingOccurrence: string | null;
  meterNumber: string | null;
}

export interface MeteringPoint {
  id: string;
  type: string;
  settlementMethod: string | null;
  readingOccurrence: string | null;
  meterNumber: string | null;
  postcode: string | null;
  cityName: string | null;
  balanceSupplierName: string | null;
  children: ChildMeteringPoint[];
}

export interface SeriesPoint {
  position: number;
  /** Start of the interval the point measures. */
  start: Date;
  /** kWh as the exact decimal text the provider sent. */
  quantityKwh: string;
  quality: string | null;
}

export interface SeriesPeriod {
  resolution: string;
  start: Date;
  end: Date;
  points: SeriesPoint[];
}

export interface TimeSeries {
  meteringPointId: string;
  businessType: string;
  unit: string | null;
  periods: SeriesPeriod[];
}

export interface Charge {
  kind: 'subscription' | 'fee' | 'tariff';
  name: string;
  description: string | null;
  owner: string;
  periodType: string | null;
  validFrom: Date;
  validTo: Date | null;
  quantity: number | null;
  /** DKK excl. VAT (per month for subscriptions, per kWh for tariffs), as exact decimal text. */
  prices: { position: number; priceDkk: string }[];
}

export interface MeteringPointCharges {
  meteringPointId: string;
  charges: Charge[];
}

/** A per-item failure inside an HTTP 200, with the provider's error code. */
export class EloverblikItemError extends ProviderError {
  constructor(
    readonly code: number,
    readonly text: string,
    readonly meteringPointId: string | null,
  ) {
    super(NAME, `error ${code} ${text}${meteringPointId ? ` for metering point ${meteringPointId}` : ''}`, {
      status: 200,
      transient: false,
    });
  }
}

const orNull = (v: string | null | undefined) => (v ? v : null);
/** Text that is only shown (a city, a description): stored as it can be, see storableText. */
const shown = (v: string | null | undefined) => (v ? storableText(v) : null);

/** A failed item (success false or an error code other than 10000) is an error with its code. */
function checkItems(data: unknown) {
  for (const item of Outcome.parse(data).result) {
    const code = item.errorCode ?? null;
    if (item.success === false || (code !== null && code !== 10000))
      throw new EloverblikItemError(code ?? 0, orNull(item.errorText) ?? 'unknown error', orNull(item.id));
  }
}

export function parseMeteringPoints(data: unknown): MeteringPoint[] {
  return MeteringPoints.parse(data).result.map((mp) => ({
    id: mp.meteringPointId,
    type: mp.typeOfMP,
    settlementMethod: orNull(mp.settlementMethod),
    readingOccurrence: orNull(mp.meterReadingOccurrence),
    meterNumber: shown(mp.meterNumber),
    postcode: shown(mp.postcode),
    cityName: shown(mp.cityName),
    balanceSupplierName: shown(mp.balanceSupplierName),
    children: (mp.childMeteringPoints ?? []).map((child) => ({
      id: child.meteringPointId,
      parentId: mp.meteringPointId,
      type: child.typeOfMP,
      readingOccurrence: orNull(child.meterReadingOccurrence),
      meterNumber: shown(child.meterNumber),
    })),
  }));
}

export function parseTimeSeries(data: unknown): TimeSeries[] {
  checkItems(data);
  return TimeSeriesAnswer.parse(data).result.flatMap((item, i) =>
    item.MyEnergyData_MarketDocument.TimeSeries.map((ts, j) => {
      const id = orNull(ts.MarketEvaluationPoint.mRID.name) ?? orNull(ts.mRID);
      if (id === null)
        throw malformed(NAME, `result[${i}].MyEnergyData_MarketDocument.TimeSeries[${j}].mRID is not a text`);
      return {
        meteringPointId: id,
        businessType: ts.businessType,
        unit: orNull(ts['measurement_Unit.name']),
        periods: ts.Period.map(period),
      };
    }),
  );
}

function period(p: Static<typeof Period>): SeriesPeriod {
  const step = STEP[p.resolution]!;
  const start = new Date(p.timeInterval.start);
  // Calendar steps (days, months) follow the Danish calendar; hours and quarters are exact durations.
  const from = DateTime.fromJSDate(start, { zone: DANISH_ZONE });
  return {
    resolution: p.resolution,
    start,
    end: new Date(p.timeInterval.end),
    points: p.Point.map((point) => {
      const position = Number(point.position);
      const offset = Object.fromEntries(
        Object.entries(step).map(([unit, size]) => [unit, (size as number) * (position - 1)]),
      );
      return {
        position,
        start: from.plus(offset).toJSDate(),
        quantityKwh: point['out_Quantity.quantity'],
        quality: orNull(point['out_Quantity.quality']),
      };
    }),
  };
}

/**
 * A charges answer that is refused whole: a charge outside the bounds of plausible.ts, or a
 * name that cannot be stored as it is. Nothing of it is stored; the metering sync goes on without it.
 */
export class RefusedCharges extends ProviderError {
  constructor(readonly why: string) {
    super(NAME, `implausible charges answer refused: ${why}`, { status: 200, transient: false });
  }
}

/** Why a charges answer is refused (every refused charge named, the first few), or null. */
export function chargesRefusal(answer: MeteringPointCharges[]): { why: string; count: number } | null {
  const refused = answer.flatMap((mp) =>
    mp.charges.flatMap((c) => {
      const why = chargeRefusal({
        kind: c.kind,
        name: c.name,
        ownerGln: c.owner,
        prices: c.prices.map((p) => p.priceDkk),
      });
      return why === null ? [] : [why];
    }),
  );
  if (refused.length === 0) return null;
  const more = refused.length > 3 ? `; and ${refused.length - 3} more` : '';
  return { why: refused.slice(0, 3).join('; ') + more, count: refused.length };
}

export function parseCharges(data: unknown): MeteringPointCharges[] {
  checkItems(data);
  return ChargesAnswer.parse(data).result.map((item, i) => {
    const inner = item.result;
    const id = orNull(inner.meteringPointId) ?? orNull(item.id);
    if (id === null) throw malformed(NAME, `result[${i}].id is not a text`);
    return {
      meteringPointId: id,
      charges: [
        ...(inner.subscriptions ?? []).map((c) =>
          charge(c, 'subscription', [{ position: 1, price: c.price }]),
        ),
        ...(inner.fees ?? []).map((c) => charge(c, 'fee', [{ position: 1, price: c.price }])),
        ...(inner.tariffs ?? []).map((c) => charge(c, 'tariff', c.prices)),
      ],
    };
  });
}

function charge(
  c: Static<typeof Flat> | Static<typeof Tariff>,
  kind: Charge['kind'],
  prices: { position: number | string; price: number }[],
): Charge {
  return {
    kind,
    name: c.name,
    description: shown(c.description),
    owner: c.owner,
    periodType: orNull(c.periodType),
    validFrom: new Date(c.validFromDate),
    validTo: c.validToDate ? new Date(c.validToDate) : null,
    quantity: typeof c.quantity === 'number' && Number.isInteger(c.quantity) ? c.quantity : null,
    // The shortest text that reads back as the same double: what the provider wrote.
    prices: prices.map((p) => ({ position: Number(p.position), priceDkk: String(p.price) })),
  };
}
