import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/metering/repository.js';

const start = new Date('2026-07-02T22:00:00Z');
const end = new Date('2026-07-03T22:00:00Z');
const point = '571313100000012345';

const examples: QueryExamples<typeof repository> = {
  lockSyncDate: [['2026-07-02']],
  notifySynced: [['2026-07-02']],
  analyzeEnergy: [[]],
  hasConsumptionBetween: [[start, end]],
  upsertMeteringPoints: [
    [
      [
        {
          metering_point_id: point,
          parent_id: null,
          type_of_mp: 'E17',
          settlement_method: 'D01',
          reading_occurrence: 'PT1H',
          meter_number: '12345',
          postcode: '8000',
          city_name: 'Aarhus C',
          balance_supplier_name: 'Supplier A/S',
        },
      ],
    ],
  ],
  insertReadings: [
    [
      [
        {
          metering_point_id: point,
          start_at: start,
          resolution: 'PT1H',
          business_type: 'A04',
          quantity_kwh: '0.412',
          quality: 'A04',
        },
      ],
    ],
  ],
  insertCharge: [
    [
      {
        metering_point_id: point,
        kind: 'tariff',
        name: 'Nettarif C time',
        description: null,
        owner_gln: '5790000705689',
        period_type: 'PT1H',
        quantity: 1,
        valid_from: start,
        valid_to: null,
      },
    ],
  ],
  insertChargePrices: [[[{ charge_id: 7, position: 1, price_dkk: '0.2112' }]]],
  insertEnergy: [
    [
      'power.consumption',
      [{ metering_point_id: point, start_at: start, quantity_kwh: '0.412', quality: 'A04' }],
    ],
  ],
  energyBetween: [['power.production', start, end]],
  energyHoursBetween: [['power.consumption', start, end]],
  lastMeteredDay: [[new Date('2026-06-02T22:00:00Z'), new Date('2026-07-02T22:00:00Z')]],
  chargeListings: [[]],
  lastSyncedDay: [[]],
  markSynced: [['2026-07-01']],
};

export default {
  name: 'metering',
  modules: [{ path: 'src/power/metering/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
