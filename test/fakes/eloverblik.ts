import { randomBytes } from 'node:crypto';
import { addDays, danishDaySteps } from '../../src/shared/danish-time.js';
import { FakeHttpServer, type FakeRequest, type FakeReply } from './http.js';

/**
 * Eloverblik's customer API on 127.0.0.1, answering in its wire format (docs/providers.md) from
 * generated data: a household with an E17 meter and D06 (to grid), D07 (from grid) and D14
 * children, hourly series of 23, 24 or 25 points per Danish day, and the usual charges.
 */

export interface FakePoint {
  id: string;
  type: string;
  children: { id: string; type: string }[];
}

export const HOUSEHOLD: FakePoint[] = [
  {
    id: '571313100000000017',
    type: 'E17',
    children: [
      { id: '571313100000000106', type: 'D06' },
      { id: '571313100000000107', type: 'D07' },
      { id: '571313100000000114', type: 'D14' },
    ],
  },
];

/** The kWh of an hour, deterministic so tests can compute what must be stored. */
export function quantityOf(id: string, position: number): string {
  const seed = Number(id.slice(-3));
  return (((seed * 7 + position * 13) % 997) / 1000).toFixed(3);
}

export function hourlyPeriod(id: string, date: string, minutes: 15 | 60 = 60) {
  const steps = danishDaySteps(date, minutes);
  const end = new Date(steps[steps.length - 1]!.getTime() + minutes * 60_000);
  return {
    resolution: minutes === 15 ? 'PT15M' : 'PT1H',
    timeInterval: { start: iso(steps[0]!), end: iso(end) },
    Point: steps.map((_, i) => ({
      position: String(i + 1),
      'out_Quantity.quantity': quantityOf(id, i + 1),
      'out_Quantity.quality': i === 0 ? 'A03' : 'A04',
    })),
  };
}

/** One `result[]` item of gettimeseries: a document with one series and one Period per day. */
export function timeSeriesItem(id: string, type: string, from: string, to: string, minutes: 15 | 60 = 60) {
  const periods = [];
  for (let d = from; d < to; d = addDays(d, 1)) periods.push(hourlyPeriod(id, d, minutes));
  return {
    MyEnergyData_MarketDocument: {
      mRID: `fake:${randomBytes(4).toString('hex')}`,
      createdDateTime: '2026-07-01T09:00:00Z',
      'sender_MarketParticipant.name': '',
      'sender_MarketParticipant.mRID': { codingScheme: null, name: null },
      'period.timeInterval': {
        start: periods[0]?.timeInterval.start,
        end: periods[periods.length - 1]?.timeInterval.end,
      },
      TimeSeries: [
        {
          mRID: id,
          businessType: type === 'D06' || type === 'E18' ? 'A01' : 'A04',
          curveType: 'A01',
          'measurement_Unit.name': 'KWH',
          MarketEvaluationPoint: { mRID: { codingScheme: 'A10', name: id } },
          Period: periods,
        },
      ],
    },
    ...ok(id),
  };
}

export function itemError(id: string, code: number, text: string) {
  return { result: null, success: false, errorCode: code, errorText: text, id, stackTrace: null };
}

export function chargesItem(id: string) {
  const tariff = (name: string, periodType: string, prices: number[]) => ({
    name,
    description: name,
    owner: '5790000705689',
    periodType,
    validFromDate: '2026-01-01T00:00:00.000Z',
    validToDate: null,
    prices: prices.map((price, i) => ({ position: String(i + 1), price })),
  });
  const hours = Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 0.7885 : 0.3028));
  return {
    result: {
      meteringPointId: id,
      subscriptions: [
        {
          name: 'Netabonnement',
          description: 'Abonnement',
          owner: '5790000705689',
          validFromDate: '2026-01-01T00:00:00.000Z',
          validToDate: null,
          price: 58.25,
          quantity: 1,
        },
      ],
      fees: [],
      tariffs: [tariff('Nettarif C time', 'PT1H', hours), tariff('Systemtarif', 'P1D', [0.061])],
    },
    ...ok(id),
  };
}

export interface ChargeList {
  subscriptions: Record<string, unknown>[];
  fees: Record<string, unknown>[];
  tariffs: Record<string, unknown>[];
}

/** A tariff as getcharges lists it: 24 hourly prices (PT1H) or one (P1D), DKK/kWh. */
export function meterTariff(o: {
  name: string;
  owner: string;
  validFrom: string;
  validTo?: string | null;
  prices: number[];
}) {
  return {
    name: o.name,
    description: o.name,
    owner: o.owner,
    periodType: o.prices.length === 24 ? 'PT1H' : 'P1D',
    validFromDate: o.validFrom,
    validToDate: o.validTo ?? null,
    prices: o.prices.map((price, i) => ({ position: String(i + 1), price })),
  };
}

/** A subscription (DKK a month) or fee as getcharges lists it. */
export function meterSubscription(o: {
  name: string;
  owner: string;
  validFrom: string;
  validTo?: string | null;
  price: number;
}) {
  return {
    name: o.name,
    description: o.name,
    owner: o.owner,
    validFromDate: o.validFrom,
    validToDate: o.validTo ?? null,
    price: o.price,
    quantity: 1,
  };
}

export function meteringPointsDocument(points: FakePoint[], occurrence = 'PT1H') {
  return {
    result: points.map((p) => ({
      meteringPointId: p.id,
      typeOfMP: p.type,
      balanceSupplierName: 'Fake Energi A/S',
      postcode: '4340',
      cityName: 'Tølløse',
      hasRelation: true,
      settlementMethod: 'E02',
      meterReadingOccurrence: occurrence,
      meterNumber: null,
      childMeteringPoints: p.children.map((c) => ({
        parentMeteringPointId: p.id,
        meteringPointId: c.id,
        typeOfMP: c.type,
        meterReadingOccurrence: occurrence,
        meterNumber: '353240',
      })),
    })),
  };
}

/** A JWT-shaped token whose payload carries `exp`, as the real data access token does. */
export function accessTokenValid(forMs: number): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const exp = Math.floor((Date.now() + forMs) / 1000);
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp, jti: randomBytes(6).toString('hex') })}.sig`;
}

function ok(id: string) {
  return { success: true, errorCode: 10000, errorText: 'NoError', id, stackTrace: null };
}

function iso(d: Date) {
  return d.toISOString().replace('.000Z', 'Z');
}

const UNAUTHORIZED: FakeReply = { status: 401, json: '[20012] Unauthorized' };

export class FakeEloverblik {
  readonly refreshToken = `refresh-${randomBytes(8).toString('hex')}`;
  points: FakePoint[] = HOUSEHOLD;
  tokenLifetimeMs = 24 * 3600_000;
  /** Per metering point id: the error its items answer with (inside an HTTP 200). */
  readonly itemErrors = new Map<string, { code: number; text: string }>();
  /** Per requested start date: the error every item answers with. */
  readonly dateErrors = new Map<string, { code: number; text: string }>();
  /** Every getcharges item answers with this error. */
  chargesError: { code: number; text: string } | null = null;
  /** PT15M: a quarter-hour meter, answering Quarter (and Actual) with 92, 96 or 100 points a day. */
  readingOccurrence: 'PT1H' | 'PT15M' = 'PT1H';
  /** Per metering point id: the charges getcharges lists (default: chargesItem's). */
  readonly chargeLists = new Map<string, ChargeList>();
  /** Every data call answers 401, whatever the token. */
  refuseAccessTokens = false;
  private readonly valid = new Set<string>();

  private constructor(readonly server: FakeHttpServer) {}

  static async start(): Promise<FakeEloverblik> {
    const fake = new FakeEloverblik(await FakeHttpServer.start());
    fake.routes();
    return fake;
  }

  get url() {
    return this.server.url;
  }
  get tokenCalls() {
    return this.server.countOf('GET', '/customerapi/api/token');
  }
  get seriesCalls() {
    return this.server.countOf('POST', /\/gettimeseries\//i);
  }
  /** Every data access token issued so far stops working, as after its 24 hours. */
  expireTokens() {
    this.valid.clear();
  }
  close() {
    return this.server.close();
  }

  private typeOf(id: string): string {
    for (const p of this.points) {
      if (p.id === id) return p.type;
      const child = p.children.find((c) => c.id === id);
      if (child) return child.type;
    }
    return 'E17';
  }

  private authorized(req: FakeRequest): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return !this.refuseAccessTokens && token !== undefined && this.valid.has(token);
  }

  private ids(req: FakeRequest): string[] {
    return req.json<{ meteringPoints: { meteringPoint: string[] } }>().meteringPoints.meteringPoint;
  }

  private routes() {
    const s = this.server;
    s.on('GET', '/customerapi/api/token', (req) => {
      if (req.headers.authorization !== `Bearer ${this.refreshToken}`) return UNAUTHORIZED;
      const token = accessTokenValid(this.tokenLifetimeMs);
      this.valid.add(token);
      return { json: { result: token } };
    });
    s.on('GET', '/customerapi/api/meteringpoints/meteringpoints', (req) =>
      this.authorized(req)
        ? { json: meteringPointsDocument(this.points, this.readingOccurrence) }
        : UNAUTHORIZED,
    );
    s.on('POST', /^\/customerapi\/api\/meterdata\/gettimeseries\/[^/]+\/[^/]+\/[^/]+$/i, (req) => {
      if (!this.authorized(req)) return UNAUTHORIZED;
      const [, , , , , from = '', to = '', aggregation] = req.path.split('/');
      if (from >= to) return { status: 400, json: '[30002] ToDateCanNotBeEqualToFromDate' };
      const quarters = this.readingOccurrence === 'PT15M';
      const minutes =
        aggregation === 'Hour'
          ? 60
          : quarters && (aggregation === 'Quarter' || aggregation === 'Actual')
            ? 15
            : null;
      if (minutes === null && aggregation !== 'Actual')
        return { status: 400, json: '[30008] RequestedAggregationUnavaliable' };
      return {
        json: {
          result: this.ids(req).map((id) => {
            const failure = this.dateErrors.get(from) ?? this.itemErrors.get(id);
            return failure
              ? itemError(id, failure.code, failure.text)
              : timeSeriesItem(id, this.typeOf(id), from, to, minutes ?? 60);
          }),
        },
      };
    });
    s.on('POST', '/customerapi/api/meteringpoints/meteringpoint/getcharges', (req) => {
      if (!this.authorized(req)) return UNAUTHORIZED;
      return {
        json: {
          result: this.ids(req).map((id) => {
            const failure = this.chargesError ?? this.itemErrors.get(id);
            if (failure) return itemError(id, failure.code, failure.text);
            const list = this.chargeLists.get(id);
            return list ? { result: { meteringPointId: id, ...list }, ...ok(id) } : chargesItem(id);
          }),
        },
      };
    });
  }
}
