/**
 * One scan of a watched wallet, pure: the chain is asked through `ChainSource` (the Esplora
 * adapter, or a test's memory), what earlier scans found comes in as `known`, and the result is
 * what to store. Receive and change chains run until `gapLimit` unused addresses in a row; an
 * address whose counts have not changed since the last scan costs one call (and no derivation:
 * the addresses asked about are kept), and one whose history grew is read only down to what is new.
 */
import type { AddressStats, ChainTx } from '../../providers/esplora.js';
import { CHAIN_PAGE } from '../../providers/esplora.js';
import { ProviderError } from '../../providers/errors.js';
import type { Addresses } from './derive.js';

export interface ChainSource {
  address(address: string, signal: AbortSignal): Promise<AddressStats>;
  /** The unconfirmed transactions, then the newest CHAIN_PAGE confirmed. */
  txs(address: string, signal: AbortSignal): Promise<ChainTx[]>;
  /** The CHAIN_PAGE confirmed transactions before `lastSeen`. */
  chainTxs(address: string, lastSeen: string, signal: AbortSignal): Promise<ChainTx[]>;
}

/** An address as the last scan left it (one without transactions too: it need not be derived again). */
export interface KnownAddress {
  chain: number;
  index: number;
  address: string;
  chainTxCount: number;
  mempoolTxCount: number;
}

export interface ScannedAddress extends KnownAddress {
  /** Confirmed sats on the address: funded less spent. */
  chainSats: number;
  /** Unconfirmed change: funded less spent in the mempool (below zero while a spend waits). */
  mempoolSats: number;
}

/** A transaction as it moves the wallet's sats. */
export interface WalletTx {
  txid: string;
  confirmed: boolean;
  blockHeight: number | null;
  /** Unix seconds; null while unconfirmed. */
  blockTime: number | null;
  /** Sats its outputs pay to the wallet's addresses. */
  receivedSats: number;
  /** Sats of the wallet's addresses its inputs spend. */
  sentSats: number;
  /** The transaction's whole fee. */
  feeSats: number;
  /** Every input is the wallet's: then the fee is the wallet's too. */
  allInputsOurs: boolean;
}

export interface ScanInput {
  addresses: Addresses;
  gapLimit: number;
  known: readonly KnownAddress[];
  /** Stored transactions still unconfirmed: those no address lists any more are gone. */
  unconfirmed: readonly string[];
  signal: AbortSignal;
  /** The indexes a chain is walked through at most: past them the Esplora's answers are not believed. */
  maxIndex?: number;
}

/** More used addresses on one chain than any household wallet has. */
export const MAX_INDEX = 100_000;

export interface ScanResult {
  /** Every address asked about, in order; those without a transaction have counts of 0. */
  addresses: ScannedAddress[];
  /** The transactions read in this scan, new or changed. */
  txs: WalletTx[];
  /** Stored unconfirmed transactions that are gone (replaced, or dropped from the mempool). */
  gone: string[];
  chainSats: number;
  mempoolSats: number;
  /** Calls made to the source. */
  calls: number;
}

export async function scanWallet(source: ChainSource, input: ScanInput): Promise<ScanResult> {
  const { addresses, gapLimit, signal } = input;
  const known = new Map(input.known.map((k) => [`${k.chain}/${k.index}`, k]));
  const checked: ScannedAddress[] = [];
  const fetched = new Map<string, ChainTx>();
  let calls = 0;
  const counted = <T>(p: () => Promise<T>) => {
    signal.throwIfAborted();
    calls++;
    return p();
  };

  const visit = async (chain: number, index: number, address: string): Promise<boolean> => {
    const st = await counted(() => source.address(address, signal));
    const chainTxCount = st.chain.txCount;
    const mempoolTxCount = st.mempool.txCount;
    const at = { chain, index, address, chainTxCount, mempoolTxCount };
    if (chainTxCount + mempoolTxCount === 0) {
      checked.push({ ...at, chainSats: 0, mempoolSats: 0 });
      return false;
    }
    const before = known.get(`${chain}/${index}`);
    const seen = before?.address === address ? before : undefined;
    const fresh = chainTxCount - (seen?.chainTxCount ?? 0);
    // fewer confirmed than before: a reorganisation; read the whole history again
    const need = fresh < 0 ? chainTxCount : fresh;
    if (need > 0 || mempoolTxCount > 0 || (seen?.mempoolTxCount ?? 0) > 0) {
      let page = await counted(() => source.txs(address, signal));
      let confirmed = page.filter((t) => t.confirmed);
      let got = confirmed.length;
      for (const t of page) fetched.set(t.txid, t);
      while (got < need && confirmed.length === CHAIN_PAGE) {
        const last = confirmed.at(-1)!.txid;
        page = await counted(() => source.chainTxs(address, last, signal));
        confirmed = page.filter((t) => t.confirmed);
        // an Esplora that answers a page it gave before would be asked for ever
        if (confirmed.every((t) => fetched.has(t.txid))) break;
        got += confirmed.length;
        for (const t of page) fetched.set(t.txid, t);
      }
    }
    checked.push({
      ...at,
      chainSats: st.chain.funded - st.chain.spent,
      mempoolSats: st.mempool.funded - st.mempool.spent,
    });
    return true;
  };

  if (addresses.ranged) {
    for (let chain = 0; chain < addresses.chains; chain++) {
      let unused = 0;
      for (let index = 0; unused < gapLimit; index++) {
        if (index >= (input.maxIndex ?? MAX_INDEX))
          throw new ProviderError(
            'esplora',
            `every address of chain ${chain} up to index ${index} is said to be used: refused as implausible`,
            { transient: false, badAnswer: true, status: 200 },
          );
        const address = known.get(`${chain}/${index}`)?.address ?? addresses.address(chain, index);
        unused = (await visit(chain, index, address)) ? 0 : unused + 1;
      }
    }
  } else for (const f of addresses.fixed()) await visit(f.chain, f.index, f.address);

  const ours = new Set(checked.map((u) => u.address));
  const txs = [...fetched.values()].map((t) => summarize(t, ours));
  return {
    addresses: checked,
    txs,
    gone: input.unconfirmed.filter((txid) => !fetched.has(txid)),
    chainSats: checked.reduce((s, u) => s + u.chainSats, 0),
    mempoolSats: checked.reduce((s, u) => s + u.mempoolSats, 0),
    calls,
  };
}

/** How a transaction moves the sats of the wallet whose addresses are `ours`. */
export function summarize(tx: ChainTx, ours: ReadonlySet<string>): WalletTx {
  const mine = (l: { address: string | null }) => l.address !== null && ours.has(l.address);
  return {
    txid: tx.txid,
    confirmed: tx.confirmed,
    blockHeight: tx.blockHeight,
    blockTime: tx.blockTime,
    receivedSats: tx.outputs.filter(mine).reduce((s, l) => s + l.value, 0),
    sentSats: tx.inputs.filter(mine).reduce((s, l) => s + l.value, 0),
    feeSats: tx.fee,
    allInputsOurs: tx.inputs.length > 0 && tx.inputs.every(mine),
  };
}
