import * as repository from '../src/btc/imports/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const examples: QueryExamples<typeof repository> = {
  lockImports: [[]],
  knownEventReferences: [['kraken', ['AWDR1-AAAAA-AAAAAA', 'QDEP1-AAAAA-AAAAAA']]],
  knownLotReferences: [['kraken', ['TTRD1-AAAAA-AAAAAA']]],
  openLots: [[1]],
  insertLots: [
    [
      [
        {
          exchange: 1,
          source: 'kraken',
          reference: 'TTRD1-AAAAA-AAAAAA',
          acquired_at: new Date('2026-07-02T09:15:00Z'),
          occurred_at: '2026-07-02',
          sats: 600_000,
          amount: '500.00',
          currency: 'EUR',
        },
      ],
    ],
  ],
  insertAllocations: [[[{ event_id: 42, lot_id: 7, sats: 600_000 }]]],
  insertReferences: [[[{ event_id: 42, source: 'kraken', reference: 'AWDR1-AAAAA-AAAAAA' }]]],
  storedRates: [[['2026-07-01', '2026-07-02']]],
};

export default {
  name: 'imports',
  modules: [{ path: 'src/btc/imports/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
