import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';
import * as repository from '../src/power/household/repository.js';

const examples: QueryExamples<typeof repository> = {
  deleteHouseholdCharges: [[]],
  hasHouseholdCharges: [[]],
  deleteOtherConfiguredGrid: [['5790000705689'], [null]],
  insertHouseholdCharges: [
    [
      [
        {
          kind: 'tariff',
          role: 'grid',
          appliesTo: 'consumption',
          ownerGln: '5790000705689',
          owner: 'Radius Elnet A/S',
          name: 'Nettarif C time',
          code: 'DT_C_01',
          source: 'meter',
          pricesFrom: 'DatahubPricelist',
          validFrom: '2026-04-01T00:00:00',
          validTo: '2026-10-01T00:00:00',
          resolution: 'PT1H',
          prices: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? '0.4141' : '0.1593')),
        },
      ],
    ],
  ],
  householdChargesBetween: [['2026-07-03T00:00:00', '2026-07-04T00:00:00']],
  householdGridOwners: [[]],
  subscriptionsDuring: [['2025-10-01T00:00:00', '2025-11-01T00:00:00']],
  feedInTariffs: [[new Date('2026-07-03T10:00:00Z'), new Date('2026-07-04T22:00:00Z')]],
};

export default {
  name: 'household',
  modules: [{ path: 'src/power/household/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
