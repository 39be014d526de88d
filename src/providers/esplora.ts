import { Type, type Static } from 'typebox';
import type { FeedHealth } from '../shared/health.js';
import type { OnBusy } from './budget.js';
import { answer, refused } from './answer.js';
import { HttpProvider, ProviderError, type ProviderDeps } from './http.js';
import { BLOCK_TIME_AHEAD_MS, SATS, futureRefusal, inRange } from './plausible.js';

export const ESPLORA = 'esplora';

/** Confirmed transactions per page of `/address/:a/txs` and `/txs/chain/:last_seen_txid`. */
export const CHAIN_PAGE = 25;
/** Unconfirmed transactions `/address/:a/txs` lists at most before the confirmed ones. */
export const MEMPOOL_PAGE = 50;
/** The genesis block's time: no block is older. */
const GENESIS_S = 1_231_006_505;

const Count = Type.Integer({ minimum: 0 });
const Amount = Type.Integer();
const Stats = Type.Object({
  tx_count: Count,
  funded_txo_count: Count,
  funded_txo_sum: Amount,
  spent_txo_count: Count,
  spent_txo_sum: Amount,
});
/** `GET /address/:address` (Esplora's API.md); other fields are ignored. */
const AddressAnswer = Type.Object({ address: Type.String(), chain_stats: Stats, mempool_stats: Stats });
const Output = Type.Object({ scriptpubkey_address: Type.Optional(Type.String()), value: Amount });
const Tx = Type.Object({
  txid: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  fee: Amount,
  vin: Type.Array(
    Type.Object({ is_coinbase: Type.Optional(Type.Boolean()), prevout: Type.Union([Output, Type.Null()]) }),
  ),
  vout: Type.Array(Output),
  status: Type.Object({
    confirmed: Type.Boolean(),
    block_height: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    block_time: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  }),
});
/** `GET /address/:address/txs` (up to 50 unconfirmed, then 25 confirmed) and `/txs/chain/:last_seen_txid`. */
const TxList = Type.Array(Tx, { maxItems: MEMPOOL_PAGE + CHAIN_PAGE });
const Address = answer(ESPLORA, AddressAnswer);
const Txs = answer(ESPLORA, TxList);

export interface TxoStats {
  txCount: number;
  funded: number;
  spent: number;
}

export interface AddressStats {
  chain: TxoStats;
  mempool: TxoStats;
}

export interface TxLine {
  /** Null for an output without an address (OP_RETURN) and a coinbase input. */
  address: string | null;
  value: number;
}

/** A transaction as a wallet's scan reads it. */
export interface ChainTx {
  txid: string;
  fee: number;
  confirmed: boolean;
  blockHeight: number | null;
  /** The block's time, unix seconds; null while unconfirmed. */
  blockTime: number | null;
  inputs: TxLine[];
  outputs: TxLine[];
}

export interface EsploraOptions extends ProviderDeps {
  /** The API's base, e.g. http://umbrel.local:3006/api; user and password in it are sent as basic auth. */
  baseUrl: string;
  timeoutMs: number;
  /** Where refused answers are counted (the `chain` feed). */
  health?: FeedHealth;
  retries?: number;
  initialDelayMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  onBusy?: OnBusy;
}

/**
 * An Esplora HTTP API (Blockstream's esplora, electrs' HTTP server, mempool's /api): the address
 * endpoints a watch-only scan uses. Addresses are private: no error, log line or /health text
 * made here names one or a transaction, nor quotes an answer's body.
 */
export class EsploraClient {
  private readonly http: HttpProvider;

  constructor(private readonly opts: EsploraOptions) {
    const url = new URL(opts.baseUrl);
    const auth =
      url.username || url.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : null;
    url.username = '';
    url.password = '';
    this.http = new HttpProvider({
      ...opts,
      health: undefined,
      name: ESPLORA,
      baseUrl: url.toString().replace(/\/$/, ''),
      retries: opts.retries ?? 3,
      initialDelayMs: opts.initialDelayMs ?? 500,
      maxDelayMs: 10_000,
      headers: auth ? () => ({ authorization: auth }) : undefined,
      // the household's own server only: a redirect would hand its addresses to another
      followRedirects: false,
    });
  }

  /** `GET /address/:address`: the confirmed and unconfirmed sums. */
  async address(address: string, o: CallOptions = {}): Promise<AddressStats> {
    const body = Address.parse(
      await this.get(`/address/${encodeURIComponent(address)}`, address, o),
      'the address answer',
    );
    if (body.address !== address) throw this.refused('the answer is for another address than the one asked');
    const chain = stats(body.chain_stats);
    const mempool = stats(body.mempool_stats);
    const why = sumRefusal('chain_stats', chain) ?? sumRefusal('mempool_stats', mempool);
    if (why) throw this.refused(why);
    if (chain.spent > chain.funded) throw this.refused('chain_stats spend more sats than they fund');
    if (chain.spent + mempool.spent > chain.funded + mempool.funded)
      throw this.refused('chain and mempool stats spend more sats than they fund');
    return { chain, mempool };
  }

  /** `GET /address/:address/txs`: the unconfirmed transactions, then the newest 25 confirmed. */
  txs(address: string, o: CallOptions = {}): Promise<ChainTx[]> {
    return this.txList(`/address/${encodeURIComponent(address)}/txs`, address, o);
  }

  /** `GET /address/:address/txs/chain/:last_seen_txid`: the 25 confirmed before `lastSeen`. */
  chainTxs(address: string, lastSeen: string, o: CallOptions = {}): Promise<ChainTx[]> {
    return this.txList(`/address/${encodeURIComponent(address)}/txs/chain/${lastSeen}`, address, o);
  }

  private async txList(path: string, address: string, o: CallOptions): Promise<ChainTx[]> {
    const body = Txs.parse(await this.get(path, address, o), 'the transaction list');
    return body.map((tx) => this.trusted(tx));
  }

  private trusted(tx: Static<typeof Tx>): ChainTx {
    const lines = [...tx.vin.map((i) => i.prevout?.value ?? 0), ...tx.vout.map((v) => v.value), tx.fee];
    if (lines.some((v) => !inRange(v, SATS)))
      throw this.refused(`a transaction holds an amount outside 0..${SATS.max} sats`);
    const { confirmed } = tx.status;
    const height = tx.status.block_height ?? null;
    const time = tx.status.block_time ?? null;
    if (confirmed && (height === null || time === null))
      throw this.refused('a confirmed transaction has no block height or time');
    if (time !== null) {
      const late = futureRefusal(
        'a block',
        new Date(time * 1000),
        this.opts.clock.now(),
        BLOCK_TIME_AHEAD_MS,
      );
      if (late) throw this.refused(late);
      if (time < GENESIS_S) throw this.refused('a block is stamped before the genesis block');
    }
    return {
      txid: tx.txid,
      fee: tx.fee,
      confirmed,
      blockHeight: confirmed ? height : null,
      blockTime: confirmed ? time : null,
      inputs: tx.vin.map((i) => ({
        address: i.prevout?.scriptpubkey_address ?? null,
        value: i.prevout?.value ?? 0,
      })),
      outputs: tx.vout.map((v) => ({ address: v.scriptpubkey_address ?? null, value: v.value })),
    };
  }

  private async get(path: string, address: string, o: CallOptions): Promise<unknown> {
    try {
      return await this.http.get<unknown>(path, { signal: o.signal, onBusy: o.onBusy });
    } catch (e) {
      throw scrubbed(e, address);
    }
  }

  /** An answer that parsed but cannot be true: counted in the feed's `rejected`, nothing of it kept. */
  private refused(why: string): ProviderError {
    this.opts.health?.reject(why);
    return refused(ESPLORA, `implausible answer: ${why}`);
  }
}

function stats(s: Static<typeof Stats>): TxoStats {
  return { txCount: s.tx_count, funded: s.funded_txo_sum, spent: s.spent_txo_sum };
}

function sumRefusal(what: string, s: TxoStats): string | null {
  for (const [k, v] of [
    ['funded_txo_sum', s.funded],
    ['spent_txo_sum', s.spent],
  ] as const)
    if (!inRange(v, SATS)) return `${what}.${k} ${v} is outside 0..${SATS.max} sats`;
  return null;
}

/**
 * The transport's error without the address (in the path) or a quote of the body, and without
 * its cause, whose text may hold either: what is left is the status and the kind of failure.
 */
function scrubbed(e: unknown, address: string): unknown {
  if (!(e instanceof ProviderError)) return e;
  const text = e.message
    .slice(ESPLORA.length + 2)
    .split(encodeURIComponent(address))
    .join('…')
    .split(address)
    .join('…')
    .replace(/^((?:HTTP \d+|malformed JSON) from \S+ \S+):[\s\S]*$/, '$1');
  return new ProviderError(ESPLORA, text, { ...e.opts, cause: undefined });
}
