import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/prices/repository.js';

const start = new Date('2026-07-02T22:00:00Z');
const end = new Date('2026-07-03T22:00:00Z');
const gln = '5790000705689';
const energinet = '5790000432752';

const examples: QueryExamples<typeof repository> = {
  insertPrices: [[[{ timeUtc: start, area: 'DK1', minutes: 15, priceDkk: '612.35', priceEur: '82.07' }]]],
  deriveElprices: [[start, end, gln, energinet]],
  elpricesBetween: [[start, end]],
  pricesBetween: [
    [start, end, undefined],
    [start, end, 'DK2'],
  ],
  deleteTariffPeriods: [[gln, 'DatahubPricelist']],
  upsertTariffPeriod: [
    [
      {
        gln,
        chargeTypeCode: 'DT_C_01',
        validFrom: '2026-04-01T00:00:00',
        validTo: null,
        hourly: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? '72.45' : '21.12')),
        source: 'DatahubPricelist',
      },
    ],
  ],
  fillMissingTariffs: [[gln]],
  deleteChargePeriods: [[energinet, 'DatahubPricelist']],
  upsertChargePeriod: [
    [
      {
        gln: energinet,
        charge: 'system',
        code: '41000',
        validFrom: '2026-01-01T00:00:00',
        validTo: null,
        hourly: Array.from({ length: 24 }, () => '0.072'),
        source: 'DatahubPricelist',
      },
    ],
  ],
  applyCharges: [[energinet]],
};

export default {
  name: 'prices',
  modules: [{ path: 'src/power/prices/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
