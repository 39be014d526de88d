import type { DurationLikeObject } from 'luxon';
import { Type, type TProperties, type TSchema } from 'typebox';
import { answer } from './answer.js';

/**
 * The answers of Eloverblik's customer API as they are read (its other fields are not): each
 * refusal names the place as `result[0].meteringPointId`.
 */
const NAME = 'eloverblik';

/** The steps of a period's resolution: calendar days and months follow the Danish calendar. */
export const STEP: Record<string, DurationLikeObject> = {
  PT15M: { minutes: 15 },
  PT1H: { hours: 1 },
  PT1D: { days: 1 },
  P1D: { days: 1 },
  P1M: { months: 1 },
  PT1Y: { years: 1 },
  P1Y: { years: 1 },
};
const Text = Type.String({ minLength: 1, 'x-refused': 'is not a text' });
/** Text that may be absent, null or empty (then null): only shown, or a code read when present. */
const Maybe = Type.Optional(Type.Union([Type.String(), Type.Null()]));
/** Metering point ids are 18-digit GSRN numbers, sent as text. */
const Gsrn = Type.Refine(
  Text,
  (v) => /^\d{18}$/.test(v),
  (v) => `"${v}" is not an 18-digit metering point id`,
);
const Instant = Type.Refine(
  Text,
  (v) => !Number.isNaN(new Date(v).getTime()),
  () => 'is not an instant',
);
/** 1, 2, …, as a number or (as the provider sends it) as text. */
const Position = Type.Refine(
  Type.Union([Type.Integer(), Type.String()], { 'x-refused': 'is not a positive whole number' }),
  (v) => Number.isInteger(Number(v)) && Number(v) >= 1,
  () => 'is not a positive whole number',
);
const Amount = Type.Number({ 'x-refused': 'is not a number' });
const List = <T extends TSchema>(item: T) => Type.Array(item, { 'x-refused': 'is not a list' });
const MaybeList = <T extends TSchema>(item: T) => Type.Optional(Type.Union([List(item), Type.Null()]));
const Obj = <P extends TProperties>(properties: P) =>
  Type.Object(properties, { 'x-refused': 'is not an object' });
/** `{result: [...]}`, the envelope of every answer. */
const Results = <T extends TSchema>(item: T) => answer(NAME, Obj({ result: List(item) }), 'accessor');

/** An item of a batch answer: `success` false or an `errorCode` other than 10000 is its own failure. */
export const Outcome = Results(
  Type.Object({
    success: Type.Optional(Type.Boolean()),
    errorCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    errorText: Maybe,
    id: Maybe,
  }),
);

const Child = Obj({
  meteringPointId: Gsrn,
  typeOfMP: Text,
  meterReadingOccurrence: Maybe,
  meterNumber: Maybe,
});
/** `GET /meteringpoints/meteringpoints`: the points, each with its child points. */
export const MeteringPoints = Results(
  Obj({
    meteringPointId: Gsrn,
    typeOfMP: Text,
    settlementMethod: Maybe,
    meterReadingOccurrence: Maybe,
    meterNumber: Maybe,
    postcode: Maybe,
    cityName: Maybe,
    balanceSupplierName: Maybe,
    childMeteringPoints: MaybeList(Child),
  }),
);

const QUANTITY = /^-?\d{1,12}(\.\d{1,6})?$/;
const Point = Obj({
  position: Position,
  'out_Quantity.quantity': Type.Refine(
    Text,
    (q) => QUANTITY.test(q),
    (q) => `"${q}" is no decimal`,
  ),
  'out_Quantity.quality': Maybe,
});
export const Period = Obj({
  resolution: Type.Refine(
    Text,
    (r) => r in STEP,
    (r) => `"${r}" is unknown`,
  ),
  timeInterval: Obj({ start: Instant, end: Instant }),
  Point: List(Point),
});
/** `POST /meterdata/gettimeseries/…`: a market document per point, its series, periods and points. */
export const TimeSeriesAnswer = Results(
  Obj({
    MyEnergyData_MarketDocument: Obj({
      TimeSeries: List(
        Obj({
          mRID: Maybe,
          businessType: Text,
          'measurement_Unit.name': Maybe,
          MarketEvaluationPoint: Obj({ mRID: Obj({ name: Maybe }) }),
          Period: List(Period),
        }),
      ),
    }),
  }),
);

const chargeOf = <P extends TProperties>(prices: P) =>
  Obj({
    name: Text,
    description: Maybe,
    owner: Text,
    periodType: Maybe,
    validFromDate: Instant,
    validToDate: Type.Optional(Type.Union([Instant, Type.Null()])),
    quantity: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    ...prices,
  });
/** A subscription or a fee: one price, DKK excl. VAT. */
export const Flat = chargeOf({ price: Amount });
/** A tariff: a price per position (hour) of its period type. */
export const Tariff = chargeOf({ prices: List(Obj({ position: Position, price: Amount })) });
/** `POST /meteringpoints/meteringpoint/getcharges`: each point's subscriptions, fees and tariffs. */
export const ChargesAnswer = Results(
  Obj({
    id: Maybe,
    result: Obj({
      meteringPointId: Maybe,
      subscriptions: MaybeList(Flat),
      fees: MaybeList(Flat),
      tariffs: MaybeList(Tariff),
    }),
  }),
);
