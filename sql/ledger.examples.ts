import * as history from '../src/btc/ledger/history.js';
import * as idempotency from '../src/btc/ledger/idempotency.js';
import * as projections from '../src/btc/ledger/projections.js';
import * as repository from '../src/btc/ledger/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const deposit = {
  type: 'bank_to_exchange',
  occurred_at: '2026-07-01',
  wallet: 1,
  amount: '500.00',
  currency: 'EUR',
} as const;
const buy = {
  type: 'exchange_to_wallet',
  occurred_at: '2026-07-02',
  from_wallet: 1,
  to_wallet: 4,
  sats: 100_000,
  fee_sats: 0,
  amount: '55.00',
  currency: 'EUR',
} as const;

const repositoryExamples: QueryExamples<typeof repository> = {
  listWallets: [[], ['exchange']],
  getWallet: [[1]],
  insertWallet: [[{ name: 'Hardware', wallet_type: 'wallet' }]],
  updateWallet: [[4, { name: 'Trezor T' }]],
  deleteWallet: [[8]],
  lockWallet: [
    [1, 'update'],
    [4, 'share'],
  ],
  addToBalance: [[4, 100_000]],
  eventsNamingWallet: [[4]],
  balancesFromEvents: [[]],
  getEvent: [[42], [42, true]],
  insertEvent: [[deposit], [buy]],
  insertEvents: [[[deposit, buy]]],
  replaceEvent: [[42, buy]],
  deleteEvent: [[42]],
  listEvents: [
    [{ limit: 101 }],
    [
      {
        type: 'exchange_to_wallet',
        wallet: 4,
        from: '2026-01-01',
        to: '2026-12-31',
        after: { occurred_at: '2026-07-01', id: 42 },
        limit: 101,
      },
    ],
  ],
  hasRates: [['2026-07-01']],
  saveRates: [
    [
      [
        { date: '2026-07-04', rates_date: '2026-07-03', usd_eur: '0.85', usd_dkk: '6.34', eur_dkk: '7.46' },
        { date: '2026-07-05', rates_date: '2026-07-03', usd_eur: '0.85', usd_dkk: '6.34', eur_dkk: '7.46' },
      ],
    ],
  ],
  datesMissingRates: [[]],
  walletMoves: [[4]],
};

const historyExamples: QueryExamples<typeof history> = {
  refreshWalletDays: [
    [
      [
        { wallet: 4, day: '2026-07-02' },
        { wallet: 5, day: '2026-07-02' },
      ],
    ],
  ],
  appendToWalletDays: [
    [
      [
        { wallet: 4, day: '2026-07-02', delta: -100_010 },
        { wallet: 5, day: '2026-07-02', delta: 100_000 },
      ],
    ],
  ],
  firstDayBelowZero: [[4, '2026-07-02', 39_800]],
  rebuildWalletDays: [[]],
};

const projectionExamples: QueryExamples<typeof projections> = {
  lockReadTablesForWrite: [[]],
  lockForRebuild: [['deposits'], ['buys']],
  deleteAllRows: [['deposits'], ['buys']],
  insertAllRows: [['deposits'], ['buys']],
  deleteRowOf: [
    ['deposits', 42],
    ['buys', 42],
  ],
  insertRowsOf: [
    ['deposits', [42, 43]],
    ['buys', [44]],
  ],
  listDeposits: [
    [{ limit: 101 }],
    [{ from: '2026-01-01', to: '2026-12-31', after: { occurred_at: '2026-07-01', id: 42 }, limit: 101 }],
  ],
  depositTotals: [[]],
  listBuys: [
    [{ limit: 101 }],
    [{ from: '2026-01-01', to: '2026-12-31', after: { occurred_at: '2026-07-01', id: 42 }, limit: 101 }],
  ],
};

const idempotencyExamples: QueryExamples<typeof idempotency> = {
  findOutcome: [['key-1']],
  storeOutcome: [
    [
      'key-1',
      {
        request_hash: 'ab12',
        outcome: { event: { id: 42, type: 'wallet_to_wallet', occurred_at: '2026-07-02' } },
      },
    ],
  ],
  pruneIdempotencyKeys: [[new Date('2026-07-19T12:34:00Z'), 1000]],
};

export default {
  name: 'ledger',
  modules: [
    { path: 'src/btc/ledger/repository.ts', module: repository, examples: repositoryExamples },
    { path: 'src/btc/ledger/history.ts', module: history, examples: historyExamples },
    { path: 'src/btc/ledger/projections.ts', module: projections, examples: projectionExamples },
    { path: 'src/btc/ledger/idempotency.ts', module: idempotency, examples: idempotencyExamples },
  ],
} satisfies SqlFeature;
