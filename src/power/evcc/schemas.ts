import { Type, type Static } from 'typebox';
import { AnyCase } from '../../http/types.js';
import { PRICE_AREAS } from '../../providers/energidataservice.js';

export const EvccQuery = Type.Object(
  { area: Type.Optional(AnyCase(PRICE_AREAS, 'price area, DK1 or DK2; default PRICE_AREA')) },
  { additionalProperties: false },
);

const Utc = (description: string) =>
  Type.String({
    description: `${description}, UTC: YYYY-MM-DDTHH:MM:SSZ`,
    examples: ['2026-01-15T16:00:00Z'],
  });

export const EvccRate = Type.Object({
  start: Utc('start of the quarter hour'),
  end: Utc('its end (exclusive)'),
  value: Type.Number(),
});
export type EvccRate = Static<typeof EvccRate>;

export const EvccRates = (unit: string) =>
  Type.Array(EvccRate, {
    description: `one rate per quarter hour, from the current one to the last one known; value in ${unit}`,
  });
