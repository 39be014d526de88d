import * as repository from '../src/btc/chain/repository.js';
import type { QueryExamples, SqlFeature } from '../src/db/sql-snapshot.js';

const TXID = '6f7cf9580f1c2dfb3c4d5d043cdbb128c640e3f20161245aa7372e9666168516';
const ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const at = new Date('2026-07-03T10:41:00Z');

const examples: QueryExamples<typeof repository> = {
  getWatch: [[4]],
  lockWatch: [[4]],
  deleteWatch: [[4]],
  insertWatch: [
    [
      {
        wallet: 4,
        kind: 'zpub',
        network: 'mainnet',
        key: 'zpub…',
        first_address: ADDRESS,
        fingerprint: 'fd13aac9',
      },
    ],
  ],
  lockWatchKeys: [[]],
  walletWatchingKey: [['zpub…', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 4]],
  watchFaces: [[[4, 5]]],
  watchedWallets: [[]],
  recordScan: [[4, { scanned_at: at, chain_sats: 150_000, mempool_sats: -20_500, gap_limit: 20 }]],
  knownAddresses: [[4]],
  deleteAddresses: [[4]],
  insertAddresses: [
    [
      [
        {
          wallet: 4,
          chain: 0,
          idx: 0,
          address: ADDRESS,
          chain_tx_count: 2,
          mempool_tx_count: 1,
          chain_sats: 150_000,
          mempool_sats: -20_500,
        },
      ],
    ],
  ],
  unconfirmedTxids: [[4]],
  upsertTxs: [
    [
      [
        {
          wallet: 4,
          txid: TXID,
          confirmed: true,
          block_height: 823_100,
          block_time: at,
          seen_at: at,
          received_sats: 0,
          sent_sats: 50_500,
          fee_sats: 500,
          all_inputs_ours: true,
        },
      ],
    ],
  ],
  deleteTxs: [[4, [TXID]]],
  txParts: [[4]],
};

export default {
  name: 'chain',
  modules: [{ path: 'src/btc/chain/repository.ts', module: repository, examples }],
} satisfies SqlFeature;
