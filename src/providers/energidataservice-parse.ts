import { DateTime } from 'luxon';
import { Type, type TSchema } from 'typebox';
import { DANISH_ZONE } from '../shared/danish-time.js';
import { storableText } from '../shared/text.js';
import { answer } from './answer.js';

/**
 * The datasets of Energi Data Service as they are read (DayAheadPrices, Elspotprices and
 * DatahubPricelist; the CO₂ datasets in energidataservice-co2.ts), and their rows as values.
 */
export const PROVIDER_NAME = 'energidataservice';
export const PRICE_AREAS = ['DK1', 'DK2'] as const;
export type PriceArea = (typeof PRICE_AREAS)[number];

/** Elspotprices was discontinued after this Danish day; DayAheadPrices carries everything from it on. */
export const DAY_AHEAD_FROM = '2025-10-01';
const QUARTER_HOURS_FROM = new Date('2025-09-30T22:00:00Z');

/** One day-ahead price as the provider published it; prices are decimal strings in DKK/MWh. */
export interface DayAheadPrice {
  timeUtc: Date;
  area: PriceArea;
  minutes: 15 | 60;
  priceDkk: string;
  priceEur: string | null;
}

/** One grid tariff record of DatahubPricelist; prices are DKK/kWh strings for wall-clock hours 0–23. */
export interface TariffRecord {
  gln: string;
  chargeTypeCode: string;
  validFrom: string;
  validTo: string | null;
  hourly: string[];
  /** D01 subscription, D02 fee, D03 tariff; the short name (`Note`); the owner's name; PT1H, P1D or P1M. */
  chargeType?: string | null;
  note?: string | null;
  owner?: string | null;
  resolution?: string | null;
}

/** Danish or UTC wall time without an offset, as every dataset writes its instants. */
export const LocalTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?$' });
/** A price as a JSON number; the exact decimal it prints as is kept. */
const Price = Type.Number();

/** The envelope of every dataset: `{total, filters, dataset, records: [...]}`; only records is read. */
const records = <R extends TSchema>(record: R) => Type.Object({ records: Type.Array(record) });
/** One row of a spot dataset: an instant, an area and the price in DKK and EUR per MWh. */
const spotRow = <F extends [string, string, string]>([time, dkk, eur]: F) =>
  Type.Object({
    [time]: LocalTime,
    PriceArea: Type.String(),
    // some old Elspotprices rows have no DKK price: such an hour is simply missing
    [dkk]: Type.Union([Price, Type.Null()]),
    [eur]: Type.Union([Price, Type.Null()]),
  } as Record<F[number] | 'PriceArea', TSchema>);

const DAY_AHEAD = ['TimeUTC', 'DayAheadPriceDKK', 'DayAheadPriceEUR'] as const;
const ELSPOT = ['HourUTC', 'SpotPriceDKK', 'SpotPriceEUR'] as const;
const DayAheadPrices = answer(PROVIDER_NAME, records(spotRow([...DAY_AHEAD])));
const Elspotprices = answer(PROVIDER_NAME, records(spotRow([...ELSPOT])));

/** Text that is only shown or compared: null when absent or empty. */
const Shown = Type.Optional(Type.Union([Type.String(), Type.Null()]));
/**
 * A DatahubPricelist record: the charge's owner, type and code, its validity in Danish wall time
 * and Price1..Price24 in DKK/kWh for the wall-clock hours (a flat P1D record sets only Price1).
 */
const DatahubPricelist = answer(
  PROVIDER_NAME,
  records(
    Type.Object({
      ChargeTypeCode: Type.String(),
      ValidFrom: LocalTime,
      ValidTo: Type.Optional(Type.Union([LocalTime, Type.Null()])),
      GLN_Number: Type.Optional(Type.String()),
      ChargeOwner: Shown,
      ChargeType: Shown,
      Note: Shown,
      ResolutionDuration: Shown,
      Price1: Price,
      ...Object.fromEntries(
        Array.from({ length: 23 }, (_, i) => [
          `Price${i + 2}`,
          Type.Optional(Type.Union([Price, Type.Null()])),
        ]),
      ),
    }),
  ),
);

function parseSpot(
  rows: Record<string, unknown>[],
  [time, dkk, eur]: readonly [string, string, string],
): DayAheadPrice[] {
  const parsed: Omit<DayAheadPrice, 'minutes'>[] = [];
  for (const r of rows) {
    const area = r.PriceArea as string;
    const priceDkk = r[dkk] as number | null;
    if (!(PRICE_AREAS as readonly string[]).includes(area) || priceDkk === null) continue;
    const priceEur = r[eur] as number | null;
    parsed.push({
      timeUtc: new Date(`${r[time] as string}Z`),
      area: area as PriceArea,
      priceDkk: String(priceDkk),
      priceEur: priceEur === null ? null : String(priceEur),
    });
  }
  return withResolution(parsed);
}

/**
 * The resolution of each row comes from the gaps to its area's neighbours, not from the date;
 * only a row with no neighbour within the hour falls back on the date of the 15-minute switch.
 */
function withResolution(rows: Omit<DayAheadPrice, 'minutes'>[]): DayAheadPrice[] {
  const out: DayAheadPrice[] = [];
  const QUARTER = 15 * 60_000;
  for (const area of PRICE_AREAS) {
    const mine = rows
      .filter((r) => r.area === area)
      .sort((a, b) => a.timeUtc.getTime() - b.timeUtc.getTime());
    mine.forEach((row, i) => {
      const t = row.timeUtc.getTime();
      const prevGap = i > 0 ? t - mine[i - 1]!.timeUtc.getTime() : Infinity;
      const nextGap = i + 1 < mine.length ? mine[i + 1]!.timeUtc.getTime() - t : Infinity;
      const isolated = prevGap > 4 * QUARTER && nextGap > 4 * QUARTER;
      const quarter =
        t % (4 * QUARTER) !== 0 ||
        prevGap === QUARTER ||
        nextGap === QUARTER ||
        (isolated && t >= QUARTER_HOURS_FROM.getTime());
      out.push({ ...row, minutes: quarter ? 15 : 60 });
    });
  }
  return out.sort((a, b) => a.timeUtc.getTime() - b.timeUtc.getTime() || a.area.localeCompare(b.area));
}

export function parseDayAheadPrices(body: unknown): DayAheadPrice[] {
  return parseSpot(DayAheadPrices.parse(body).records, DAY_AHEAD);
}

export function parseElspotprices(body: unknown): DayAheadPrice[] {
  return parseSpot(Elspotprices.parse(body).records, ELSPOT);
}

export function parseDatahubPricelist(body: unknown, gln: string): TariffRecord[] {
  return DatahubPricelist.parse(body).records.map((r) => {
    const price = r as unknown as Record<string, number | null | undefined>;
    // A flat (P1D) record sets only Price1; it holds for every hour.
    const hourly = Array.from({ length: 24 }, (_, i) => String(price[`Price${i + 1}`] ?? r.Price1));
    const text = (v: string | null | undefined) => (v ? v : null);
    // The owner's name is only shown; the note and the code identify the charge (trustedCharges).
    const owner = text(r.ChargeOwner);
    return {
      gln: r.GLN_Number ?? gln,
      chargeType: text(r.ChargeType),
      note: text(r.Note),
      owner: owner === null ? null : storableText(owner),
      resolution: text(r.ResolutionDuration),
      chargeTypeCode: r.ChargeTypeCode,
      validFrom: normaliseLocal(r.ValidFrom),
      validTo: r.ValidTo ? normaliseLocal(r.ValidTo) : null,
      hourly,
    };
  });
}

function normaliseLocal(ts: string): string {
  return DateTime.fromISO(ts, { zone: DANISH_ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
}
