import { DateTime, type DurationLikeObject } from 'luxon';
import { DANISH_ZONE } from '../shared/danish-time.js';
import { storableText } from '../shared/text.js';
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

type Json = Record<string, unknown>;

function bad(where: string, what: string): ProviderError {
  return new ProviderError(NAME, `unexpected answer: ${where} ${what}`, { status: 200, transient: false });
}
function obj(v: unknown, where: string): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(where, 'is not an object');
  return v as Json;
}
function arr(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw bad(where, 'is not a list');
  return v;
}
function str(o: Json, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw bad(`${where}.${key}`, 'is not a text');
  return v;
}
/** Metering point ids are 18-digit GSRN numbers, sent as text. */
function gsrn(o: Json, key: string, where: string): string {
  const v = str(o, key, where);
  if (!/^\d{18}$/.test(v)) throw bad(`${where}.${key}`, `"${v}" is not an 18-digit metering point id`);
  return v;
}
function optStr(o: Json, key: string): string | null {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : null;
}
/** Text that is only shown (a city, a description): stored as it can be, see storableText. */
function optText(o: Json, key: string): string | null {
  const v = optStr(o, key);
  return v === null ? null : storableText(v);
}
function instant(o: Json, key: string, where: string): Date {
  const d = new Date(str(o, key, where));
  if (Number.isNaN(d.getTime())) throw bad(`${where}.${key}`, 'is not an instant');
  return d;
}
function optInstant(o: Json, key: string, where: string): Date | null {
  return o[key] === null || o[key] === undefined ? null : instant(o, key, where);
}
function positionOf(o: Json, where: string): number {
  const p = Number(o.position);
  if (!Number.isInteger(p) || p < 1) throw bad(`${where}.position`, 'is not a positive whole number');
  return p;
}

/** `{result: [...]}`, the envelope of every answer. */
function results(data: unknown): unknown[] {
  return arr(obj(data, 'answer').result, 'result');
}

/** A failed item (success false or an error code other than 10000) is an error with its code. */
function checkItem(item: Json) {
  const code = typeof item.errorCode === 'number' ? item.errorCode : null;
  if (item.success === false || (code !== null && code !== 10000)) {
    const text = optStr(item, 'errorText') ?? 'unknown error';
    throw new EloverblikItemError(code ?? 0, text, optStr(item, 'id'));
  }
}

export function parseMeteringPoints(data: unknown): MeteringPoint[] {
  return results(data).map((raw, i) => {
    const where = `result[${i}]`;
    const mp = obj(raw, where);
    const children = mp.childMeteringPoints == null ? [] : arr(mp.childMeteringPoints, `${where}.children`);
    return {
      id: gsrn(mp, 'meteringPointId', where),
      type: str(mp, 'typeOfMP', where),
      settlementMethod: optStr(mp, 'settlementMethod'),
      readingOccurrence: optStr(mp, 'meterReadingOccurrence'),
      meterNumber: optText(mp, 'meterNumber'),
      postcode: optText(mp, 'postcode'),
      cityName: optText(mp, 'cityName'),
      balanceSupplierName: optText(mp, 'balanceSupplierName'),
      children: children.map((c, j) => {
        const w = `${where}.childMeteringPoints[${j}]`;
        const child = obj(c, w);
        return {
          id: gsrn(child, 'meteringPointId', w),
          parentId: gsrn(mp, 'meteringPointId', where),
          type: str(child, 'typeOfMP', w),
          readingOccurrence: optStr(child, 'meterReadingOccurrence'),
          meterNumber: optText(child, 'meterNumber'),
        };
      }),
    };
  });
}

const STEP: Record<string, DurationLikeObject> = {
  PT15M: { minutes: 15 },
  PT1H: { hours: 1 },
  PT1D: { days: 1 },
  P1D: { days: 1 },
  P1M: { months: 1 },
  PT1Y: { years: 1 },
  P1Y: { years: 1 },
};
const QUANTITY = /^-?\d{1,12}(\.\d{1,6})?$/;

export function parseTimeSeries(data: unknown): TimeSeries[] {
  const out: TimeSeries[] = [];
  results(data).forEach((raw, i) => {
    const item = obj(raw, `result[${i}]`);
    checkItem(item);
    const doc = obj(item.MyEnergyData_MarketDocument, `result[${i}].MyEnergyData_MarketDocument`);
    arr(doc.TimeSeries, `result[${i}].TimeSeries`).forEach((rawTs, j) => {
      const where = `result[${i}].TimeSeries[${j}]`;
      const ts = obj(rawTs, where);
      const mrid = obj(obj(ts.MarketEvaluationPoint, `${where}.MarketEvaluationPoint`).mRID, `${where}.mRID`);
      out.push({
        meteringPointId: optStr(mrid, 'name') ?? str(ts, 'mRID', where),
        businessType: str(ts, 'businessType', where),
        unit: optStr(ts, 'measurement_Unit.name'),
        periods: arr(ts.Period, `${where}.Period`).map((p, k) => parsePeriod(p, `${where}.Period[${k}]`)),
      });
    });
  });
  return out;
}

function parsePeriod(raw: unknown, where: string): SeriesPeriod {
  const period = obj(raw, where);
  const resolution = str(period, 'resolution', where);
  const step = STEP[resolution];
  if (!step) throw bad(`${where}.resolution`, `"${resolution}" is unknown`);
  const interval = obj(period.timeInterval, `${where}.timeInterval`);
  const start = instant(interval, 'start', `${where}.timeInterval`);
  const end = instant(interval, 'end', `${where}.timeInterval`);
  // Calendar steps (days, months) follow the Danish calendar; hours and quarters are exact durations.
  const from = DateTime.fromJSDate(start, { zone: DANISH_ZONE });
  return {
    resolution,
    start,
    end,
    points: arr(period.Point, `${where}.Point`).map((rawPoint, n) => {
      const w = `${where}.Point[${n}]`;
      const point = obj(rawPoint, w);
      const position = positionOf(point, w);
      const quantity = str(point, 'out_Quantity.quantity', w);
      if (!QUANTITY.test(quantity)) throw bad(`${w}.out_Quantity.quantity`, `"${quantity}" is no decimal`);
      const offset = Object.fromEntries(
        Object.entries(step).map(([unit, size]) => [unit, (size as number) * (position - 1)]),
      );
      return {
        position,
        start: from.plus(offset).toJSDate(),
        quantityKwh: quantity,
        quality: optStr(point, 'out_Quantity.quality'),
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
  return results(data).map((raw, i) => {
    const where = `result[${i}]`;
    const item = obj(raw, where);
    checkItem(item);
    const inner = obj(item.result, `${where}.result`);
    const list = (key: string, kind: Charge['kind']) =>
      (inner[key] == null ? [] : arr(inner[key], `${where}.${key}`)).map((c, j) =>
        parseCharge(c, kind, `${where}.${key}[${j}]`),
      );
    return {
      meteringPointId: optStr(inner, 'meteringPointId') ?? str(item, 'id', where),
      charges: [
        ...list('subscriptions', 'subscription'),
        ...list('fees', 'fee'),
        ...list('tariffs', 'tariff'),
      ],
    };
  });
}

function parseCharge(raw: unknown, kind: Charge['kind'], where: string): Charge {
  const c = obj(raw, where);
  const money = (v: unknown, w: string) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(w, 'is not a number');
    // The shortest text that reads back as the same double: what the provider wrote.
    return String(v);
  };
  const prices =
    kind === 'tariff'
      ? arr(c.prices, `${where}.prices`).map((p, k) => {
          const price = obj(p, `${where}.prices[${k}]`);
          return {
            position: positionOf(price, `${where}.prices[${k}]`),
            priceDkk: money(price.price, `${where}.prices[${k}].price`),
          };
        })
      : [{ position: 1, priceDkk: money(c.price, `${where}.price`) }];
  const quantity = typeof c.quantity === 'number' && Number.isInteger(c.quantity) ? c.quantity : null;
  return {
    kind,
    name: str(c, 'name', where),
    description: optText(c, 'description'),
    owner: str(c, 'owner', where),
    periodType: optStr(c, 'periodType'),
    validFrom: instant(c, 'validFromDate', where),
    validTo: optInstant(c, 'validToDate', where),
    quantity,
    prices,
  };
}
