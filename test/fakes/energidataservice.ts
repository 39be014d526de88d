import { DateTime } from 'luxon';
import { DANISH_ZONE, addDays, danishDaySteps } from '../../src/shared/danish-time.js';
import { FakeHttpServer, type FakeRequest } from './http.js';

export type Area = 'DK1' | 'DK2';
type Row = Record<string, string | number | null>;

/** The first Danish day of DayAheadPrices' quarter hours, and the day after Elspotprices' last. */
export const QUARTER_FROM = '2025-10-01';

const utcText = (t: Date) => t.toISOString().slice(0, 19);
const dkText = (t: Date) => DateTime.fromJSDate(t, { zone: DANISH_ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ss");

/**
 * A deterministic, float32-looking DKK/MWh price (six decimals, sometimes negative) that differs
 * by instant, area and `variant`, so tests can tell a refetch from a cached answer.
 */
export function generatedPrice(t: Date, area: Area, variant = 0): number {
  const q = t.getTime() / 900_000;
  const base =
    420 + 380 * Math.sin(q / 15) + (area === 'DK2' ? 37.5 : 0) + variant * 100 - (q % 97 === 0 ? 600 : 0);
  return Math.round((base + (q % 7) * 0.123457) * 1e6) / 1e6;
}

export interface DayOptions {
  resolution?: 15 | 60;
  areas?: Area[];
  variant?: number;
}

/** DayAheadPrices records of one Danish day: 92/96/100 quarter rows or 23/24/25 hourly rows per area. */
export function dayAheadRecords(date: string, o: DayOptions = {}): Row[] {
  const step = o.resolution ?? (date >= QUARTER_FROM ? 15 : 60);
  return danishDaySteps(date, step).flatMap((t) =>
    (o.areas ?? ['DK1', 'DK2']).map((area) => {
      const dkk = generatedPrice(t, area, o.variant);
      return {
        TimeUTC: utcText(t),
        TimeDK: dkText(t),
        PriceArea: area,
        DayAheadPriceEUR: Math.round((dkk / 7.46) * 1e6) / 1e6,
        DayAheadPriceDKK: dkk,
      };
    }),
  );
}

/** Elspotprices records (hourly) of one Danish day. */
export function elspotRecords(date: string, o: DayOptions = {}): Row[] {
  return danishDaySteps(date, 60).flatMap((t) =>
    (o.areas ?? ['DK1', 'DK2']).map((area) => {
      const dkk = generatedPrice(t, area, o.variant);
      return {
        HourUTC: utcText(t),
        HourDK: dkText(t),
        PriceArea: area,
        SpotPriceDKK: dkk,
        SpotPriceEUR: Math.round((dkk / 7.46) * 1e6) / 1e6,
      };
    }),
  );
}

/** A DatahubPricelist tariff record in the wire format, prices in DKK/kWh for the 24 hours. */
export function tariffRecord(o: {
  gln?: string;
  code?: string;
  validFrom: string;
  validTo: string | null;
  hourly: (number | null)[];
  /** D01 subscription, D02 fee, D03 tariff (the default) */
  chargeType?: string;
  note?: string;
  owner?: string;
  resolution?: string;
}): Row {
  const row: Row = {
    ChargeOwner: o.owner ?? 'Radius Elnet A/S',
    GLN_Number: o.gln ?? '5790000705689',
    ChargeType: o.chargeType ?? 'D03',
    ChargeTypeCode: o.code ?? 'DT_C_01',
    Note: o.note ?? 'Nettarif C time',
    Description: o.note ?? 'Nettarif C time',
    ValidFrom: o.validFrom,
    ValidTo: o.validTo,
    VATClass: 'D02',
    TransparentInvoicing: 1,
    TaxIndicator: 0,
    ResolutionDuration: o.resolution ?? (o.hourly.slice(1).every((v) => v === null) ? 'P1D' : 'PT1H'),
  };
  o.hourly.forEach((v, i) => (row[`Price${i + 1}`] = v));
  return row;
}

export const ENERGINET_GLN = '5790000432752';
export const RADIUS_GLN = '5790000705689';

/**
 * Radius Elnet's C-customer tariff DT_C_01 (Note "Nettarif C time") from 2025-10 to 2027-04 in
 * DKK/kWh, Tarifmodel 3.0 (lavlast 00-06, spidslast 17-21, højlast otherwise), newest first.
 */
export function radiusTariffRecords(): Row[] {
  const periods: [string, string, number, number, number][] = [
    ['2026-10-01T00:00:00', '2027-04-01T00:00:00', 0.1062, 0.3185, 0.9556],
    ['2026-04-01T00:00:00', '2026-10-01T00:00:00', 0.1062, 0.1593, 0.4141],
    ['2025-10-01T00:00:00', '2026-04-01T00:00:00', 0.0976, 0.2929, 0.8788],
  ];
  return periods.map(([validFrom, validTo, low, high, peak]) =>
    tariffRecord({
      validFrom,
      validTo,
      hourly: Array.from({ length: 24 }, (_, h) => (h < 6 ? low : h >= 17 && h < 21 ? peak : high)),
    }),
  );
}

/** One of Energinet's charges in the DatahubPricelist wire format: flat (P1D, Price1 only) or hourly (PT1H). */
export function energinetChargeRecord(o: {
  code: '40000' | '41000' | 'EA-001';
  validFrom: string;
  validTo: string | null;
  /** DKK/kWh: one number for a flat record, 24 for an hourly one. */
  price: number | number[];
  gln?: string;
}): Row {
  const names = { '40000': 'Transmissions nettarif', '41000': 'Systemtarif', 'EA-001': 'Elafgift' };
  const hourly = Array.isArray(o.price) ? o.price : [o.price, ...Array<null>(23).fill(null)];
  return {
    ...tariffRecord({
      gln: o.gln ?? ENERGINET_GLN,
      code: o.code,
      validFrom: o.validFrom,
      validTo: o.validTo,
      hourly,
    }),
    ChargeOwner: 'Energinet Systemansvar A/S (SYO)',
    Note: names[o.code],
    Description: names[o.code],
    TransparentInvoicing: 0,
    TaxIndicator: o.code === 'EA-001' ? 1 : 0,
    ResolutionDuration: Array.isArray(o.price) ? 'PT1H' : 'P1D',
  };
}

/** Tariff-of-use prices by wall-clock hour: `low` 00-06, `peak` 17-21, `high` otherwise (Tarifmodel 3.0). */
export function touHours(low: number, high: number, peak: number): number[] {
  return Array.from({ length: 24 }, (_, h) => (h < 6 ? low : h >= 17 && h < 21 ? peak : high));
}

/**
 * Generated (not recorded) yearly Energinet charges from 2023, flat, in DKK/kWh excl. VAT, newest
 * first as the provider sorts them: the shape of the real list, with values near the published ones.
 */
export function energinetChargeRecords(): Row[] {
  const years: [string, string | null, number, number, number][] = [
    // from, to, transmission, system, electricity tax
    ['2026-01-01T00:00:00', null, 0.043, 0.072, 0.008],
    ['2025-01-01T00:00:00', '2026-01-01T00:00:00', 0.049, 0.061, 0.72],
    ['2024-01-01T00:00:00', '2025-01-01T00:00:00', 0.074, 0.051, 0.761],
    ['2023-01-01T00:00:00', '2024-01-01T00:00:00', 0.058, 0.054, 0.697],
  ];
  return years.flatMap(([validFrom, validTo, transmission, system, tax]) => [
    energinetChargeRecord({ code: '40000', validFrom, validTo, price: transmission }),
    energinetChargeRecord({ code: '41000', validFrom, validTo, price: system }),
    energinetChargeRecord({ code: 'EA-001', validFrom, validTo, price: tax }),
  ]);
}

export type Co2Dataset = 'CO2Emis' | 'CO2EmisProg';
const FIVE_MINUTES_MS = 300_000;

/**
 * A generated CO₂ intensity of a 5-minute instant, g/kWh: a whole number, as the provider sends
 * them, between about 40 and 260, the same for DK1 and DK2.
 */
export function generatedCo2(t: Date): number {
  const m = t.getTime() / FIVE_MINUTES_MS;
  return Math.round(150 + 100 * Math.sin(m / 40) + (m % 11));
}

/** What the fake's CO₂ datasets hold, relative to its own clock. */
export class FakeCo2 {
  /** The fake's present: realized values end at it, the prognosis reaches `horizonHours` past it. */
  now: () => Date = () => new Date();
  horizonHours = 30;
  /** Added to every prognosis value: set it to stand for a newer issue of the prognosis. */
  issue = 0;
  /** The value of an instant in a dataset; null leaves the instant out. */
  value: (t: Date, dataset: Co2Dataset) => number | null = (t, dataset) =>
    generatedCo2(t) + (dataset === 'CO2EmisProg' ? 7 + this.issue : 0);
  /** Records added to every answer as they are: implausible values, other areas, odd instants. */
  extra: Row[] = [];
}

/** How the fake publishes a day: all of it, the first half of its rows, or not yet. */
export type Publication = 'full' | 'half' | 'none';

/**
 * Energi Data Service on 127.0.0.1: DayAheadPrices, Elspotprices (until 2025-09-30),
 * DatahubPricelist (grid tariffs and Energinet's charges) and the CO₂ datasets, honouring
 * start/end (Danish dates), the PriceArea filter and the sort.
 */
export class FakeEnergiDataService {
  /** Days not listed are published in full. */
  readonly publication = new Map<string, Publication>();
  variant = 0;
  tariffs: Row[] = [];
  /** Energinet's charges, served by DatahubPricelist beside `tariffs`. */
  charges: Row[] = energinetChargeRecords();
  /** The CO₂ datasets: CO2Emis (realized) and CO2EmisProg (the prognosis). */
  readonly co2 = new FakeCo2();

  private constructor(readonly server: FakeHttpServer) {}

  static async start(): Promise<FakeEnergiDataService> {
    const server = await FakeHttpServer.start();
    const fake = new FakeEnergiDataService(server);
    server.on('GET', '/dataset/DayAheadPrices', (r) => ({ json: fake.spot(r, 'DayAheadPrices') }));
    server.on('GET', '/dataset/Elspotprices', (r) => ({ json: fake.spot(r, 'Elspotprices') }));
    server.on('GET', '/dataset/DatahubPricelist', (r) => ({ json: fake.pricelist(r) }));
    server.on('GET', '/dataset/CO2Emis', (r) => ({ json: fake.emissions(r, 'CO2Emis') }));
    server.on('GET', '/dataset/CO2EmisProg', (r) => ({ json: fake.emissions(r, 'CO2EmisProg') }));
    return fake;
  }

  get url() {
    return this.server.url;
  }
  close() {
    return this.server.close();
  }
  /** Requests to the CO₂ datasets. */
  co2Requests(dataset?: Co2Dataset): FakeRequest[] {
    return this.server.requests.filter((r) =>
      dataset ? r.path === `/dataset/${dataset}` : /CO2Emis/.test(r.path),
    );
  }
  /** Requests to the price datasets (not the tariff list). */
  priceRequests(): FakeRequest[] {
    return this.server.requests.filter((r) => /DayAheadPrices|Elspotprices/.test(r.path));
  }

  private spot(r: FakeRequest, dataset: 'DayAheadPrices' | 'Elspotprices') {
    const start = r.query.get('start') ?? '';
    const end = r.query.get('end') ?? '';
    const filter = JSON.parse(r.query.get('filter') ?? '{}') as { PriceArea?: Area[] };
    const areas = filter.PriceArea ?? ['DK1', 'DK2'];
    const records: Row[] = [];
    for (let d = start.slice(0, 10); d < end.slice(0, 10); d = addDays(d, 1)) {
      const publication = this.publication.get(d) ?? 'full';
      if (publication === 'none') continue;
      if (dataset === 'Elspotprices' && d >= QUARTER_FROM) continue;
      const day =
        dataset === 'Elspotprices'
          ? elspotRecords(d, { areas, variant: this.variant })
          : dayAheadRecords(d, { areas, variant: this.variant });
      records.push(...(publication === 'half' ? day.slice(0, Math.floor(day.length / 2)) : day));
    }
    if (!(r.query.get('sort') ?? '').toLowerCase().endsWith('asc')) records.reverse();
    return {
      total: records.length,
      filters: JSON.stringify(filter),
      dataset,
      records,
    };
  }

  /**
   * CO2Emis and CO2EmisProg: 5-minute rows of [start, end), read as Danish wall time (or UTC with
   * `timezone=UTC`); realized rows end at the fake's present, the prognosis reaches its horizon.
   */
  private emissions(r: FakeRequest, dataset: Co2Dataset) {
    const zone = (r.query.get('timezone') ?? '').toUpperCase() === 'UTC' ? 'UTC' : DANISH_ZONE;
    const at = (text: string | null) =>
      DateTime.fromISO(text ?? '', { zone })
        .toJSDate()
        .getTime();
    const start = Math.ceil(at(r.query.get('start')) / FIVE_MINUTES_MS) * FIVE_MINUTES_MS;
    const end = at(r.query.get('end'));
    const filter = JSON.parse(r.query.get('filter') ?? '{}') as { PriceArea?: Area[] };
    const areas = filter.PriceArea ?? ['DK1', 'DK2'];
    const now = this.co2.now().getTime();
    const last = dataset === 'CO2Emis' ? now - FIVE_MINUTES_MS : now + this.co2.horizonHours * 3_600_000;
    const records: Row[] = [];
    for (let t = start; t < end && t <= last; t += FIVE_MINUTES_MS)
      for (const area of areas) {
        const value = this.co2.value(new Date(t), dataset);
        if (value === null) continue;
        records.push({
          Minutes5UTC: utcText(new Date(t)),
          Minutes5DK: dkText(new Date(t)),
          PriceArea: area,
          CO2Emission: value,
        });
      }
    records.push(...this.co2.extra);
    if (!(r.query.get('sort') ?? '').toLowerCase().endsWith('asc')) records.reverse();
    return { total: records.length, filters: JSON.stringify(filter), dataset, records };
  }

  private pricelist(r: FakeRequest) {
    const filter = JSON.parse(r.query.get('filter') ?? '{}') as Record<string, string[]>;
    const records = [...this.tariffs, ...this.charges].filter((t) =>
      Object.entries(filter).every(([k, vs]) => vs.includes(String(t[k]))),
    );
    return { total: records.length, filters: JSON.stringify(filter), dataset: 'DatahubPricelist', records };
  }
}
