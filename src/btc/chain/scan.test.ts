import { describe, expect, it, vi } from 'vitest';
import { FakeChain, OUTSIDE } from '../../../test/fakes/esplora.js';
import type { ChainTx } from '../../providers/esplora.js';
import { Addresses } from './derive.js';
import { parseWatch } from './keys.js';
import { scanWallet, type ChainSource, type KnownAddress, type ScanResult } from './scan.js';

/** BIP84's account key of "abandon … about". */
const ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const wallet = new Addresses(parseWatch(ZPUB, 'mainnet'));
const recv = (i: number) => wallet.address(0, i);
const change = (i: number) => wallet.address(1, i);

type Json = ReturnType<FakeChain['mempool']>[number];

/** The fake chain without HTTP, its answers read as the adapter reads them; counts calls by kind. */
class MemorySource implements ChainSource {
  readonly calls = { address: 0, txs: 0, chainTxs: 0 };
  constructor(readonly chain: FakeChain) {}
  async address(a: string) {
    this.calls.address++;
    const s = this.chain.stats(a);
    const of = (x: typeof s.chain_stats) => ({
      txCount: x.tx_count,
      funded: x.funded_txo_sum,
      spent: x.spent_txo_sum,
    });
    return { chain: of(s.chain_stats), mempool: of(s.mempool_stats) };
  }
  async txs(a: string) {
    this.calls.txs++;
    return this.chain.txsPage(a).map(read);
  }
  async chainTxs(a: string, last: string) {
    this.calls.chainTxs++;
    return this.chain.chainPage(a, last)!.map(read);
  }
}

function read(t: Json): ChainTx {
  const status = t.status as { confirmed: boolean; block_height?: number; block_time?: number };
  return {
    txid: t.txid,
    fee: t.fee,
    confirmed: status.confirmed,
    blockHeight: status.block_height ?? null,
    blockTime: status.block_time ?? null,
    inputs: t.vin.map((i) => ({ address: i.prevout.scriptpubkey_address, value: i.prevout.value })),
    outputs: t.vout.map((o) => ({ address: o.scriptpubkey_address, value: o.value })),
  };
}

const NEVER = new AbortController().signal;
const known = (r: ScanResult): KnownAddress[] =>
  r.addresses.map(({ chain, index, address, chainTxCount, mempoolTxCount }) => ({
    chain,
    index,
    address,
    chainTxCount,
    mempoolTxCount,
  }));
const used = (r: ScanResult) => r.addresses.filter((a) => a.chainTxCount + a.mempoolTxCount > 0);
const unconfirmed = (r: ScanResult) => r.txs.filter((t) => !t.confirmed).map((t) => t.txid);
const input = (prior?: ScanResult, gapLimit = 3) => ({
  addresses: wallet,
  gapLimit,
  known: prior ? known(prior) : [],
  unconfirmed: prior ? unconfirmed(prior) : [],
  signal: NEVER,
});
const scan = (source: ChainSource, prior?: ScanResult, gapLimit = 3) =>
  scanWallet(source, input(prior, gapLimit));

describe('the first scan', () => {
  it('walks receive and change until the gap limit, reads each used address’s history, sums the sats', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 100_000 }], block: 800_000 });
    chain.pay({ to: [{ address: recv(1), value: 50_000 }], block: 800_001 });
    // 0/2 unused, 0/3 used: two unused in a row stay below the gap of 3
    chain.pay({ to: [{ address: recv(3), value: 7_000 }], block: 800_002 });
    chain.pay({
      from: [{ address: recv(0), value: 100_000 }],
      to: [
        { address: OUTSIDE, value: 60_000 },
        { address: change(0), value: 39_000 },
      ],
      fee: 1_000,
      block: 800_003,
    });
    const source = new MemorySource(chain);
    const r = await scan(source);
    expect(used(r).map((a) => `${a.chain}/${a.index}`)).toEqual(['0/0', '0/1', '0/3', '1/0']);
    expect(r.addresses).toHaveLength(11);
    // receive 0..6 (three unused after 0/3), change 0..3
    expect(source.calls).toEqual({ address: 11, txs: 4, chainTxs: 0 });
    expect(r.calls).toBe(15);
    expect(r.chainSats).toBe(50_000 + 7_000 + 39_000);
    expect(r.mempoolSats).toBe(0);
    const spend = r.txs.find((t) => t.sentSats > 0)!;
    expect(spend).toMatchObject({
      receivedSats: 39_000,
      sentSats: 100_000,
      feeSats: 1_000,
      allInputsOurs: true,
    });
  });

  it('does not look past the gap: an address after `gap` unused ones is not found', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 1_000 }], block: 800_000 });
    chain.pay({ to: [{ address: recv(4), value: 2_000 }], block: 800_000 });
    const r = await scan(new MemorySource(chain));
    expect(used(r).map((a) => a.index)).toEqual([0]);
    const wider = await scan(new MemorySource(chain), undefined, 4);
    expect(used(wider).map((a) => a.index)).toEqual([0, 4]);
  });

  it('pages an address’s confirmed history 25 at a time, down to the oldest', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 60; i++)
      chain.pay({ to: [{ address: recv(0), value: 1_000 + i }], block: 800_000 + i });
    const source = new MemorySource(chain);
    const r = await scan(source);
    expect(source.calls.txs).toBe(1);
    expect(source.calls.chainTxs).toBe(2);
    expect(r.txs).toHaveLength(60);
    expect(new Set(r.txs.map((t) => t.txid)).size).toBe(60);
  });

  it('refuses an Esplora that says every address is used, rather than walk for ever', async () => {
    const source = new MemorySource(new FakeChain());
    source.address = async () => {
      source.calls.address++;
      return { chain: { txCount: 1, funded: 0, spent: 0 }, mempool: { txCount: 0, funded: 0, spent: 0 } };
    };
    source.txs = async () => [];
    const walk = scanWallet(source, { ...input(), maxIndex: 50 });
    await expect(walk).rejects.toThrow(/every address of chain 0 up to index 50 is said to be used/);
    expect(source.calls.address).toBe(50);
  });

  it('stops paging where the Esplora answers a page it gave before, rather than ask for ever', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 30; i++)
      chain.pay({ to: [{ address: recv(0), value: 1_000 + i }], block: 800_000 + i });
    const source = new MemorySource(chain);
    // the stats claim far more than the pages hold, and every next page is the newest again
    const address = source.address.bind(source);
    source.address = async (a: string) => {
      const st = await address(a);
      return a === recv(0) ? { ...st, chain: { ...st.chain, txCount: 1_000_000 } } : st;
    };
    source.chainTxs = async (a: string) => {
      source.calls.chainTxs++;
      return (await source.txs(a)).filter((t) => t.confirmed);
    };
    const r = await scan(source);
    expect(source.calls.chainTxs).toBe(1);
    expect(r.txs).toHaveLength(25);
  });
});

describe('a later scan', () => {
  it('with nothing new asks each address once, derives none again and reads no history', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 1_000 }], block: 800_000 });
    chain.pay({ to: [{ address: change(1), value: 2_000 }], block: 800_001 });
    const first = await scan(new MemorySource(chain));
    const source = new MemorySource(chain);
    const derived = vi.spyOn(wallet, 'address');
    const again = await scan(source, first);
    expect(derived).not.toHaveBeenCalled();
    derived.mockRestore();
    expect(source.calls).toEqual({ address: 4 + 5, txs: 0, chainTxs: 0 });
    expect(again.txs).toEqual([]);
    expect(again.chainSats).toBe(first.chainSats);
  });

  it('reads a reused address only down to its new transactions', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 40; i++) chain.pay({ to: [{ address: recv(0), value: 1_000 }], block: 800_000 + i });
    const first = await scan(new MemorySource(chain));
    const a = chain.pay({ to: [{ address: recv(0), value: 5_000 }], block: 800_100 });
    const b = chain.pay({ to: [{ address: recv(0), value: 6_000 }], block: 800_101 });
    const source = new MemorySource(chain);
    const again = await scan(source, first);
    expect(source.calls.txs).toBe(1);
    expect(source.calls.chainTxs).toBe(0);
    expect(again.txs.map((t) => t.txid)).toEqual(expect.arrayContaining([a, b]));
    expect(again.chainSats).toBe(40_000 + 11_000);
  });

  it('follows a mempool transaction until it confirms, and lets one that vanished go', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 10_000 }], block: 800_000 });
    const pending = chain.pay({ to: [{ address: recv(0), value: 3_000 }] });
    const replaced = chain.pay({ to: [{ address: recv(1), value: 4_000 }] });
    const first = await scan(new MemorySource(chain));
    expect(first.mempoolSats).toBe(7_000);
    expect(unconfirmed(first).sort()).toEqual([pending, replaced].sort());
    chain.confirm(pending, 800_001);
    chain.drop(replaced);
    const again = await scan(new MemorySource(chain), first);
    expect(again.txs.find((t) => t.txid === pending)).toMatchObject({
      confirmed: true,
      blockHeight: 800_001,
    });
    expect(again.gone).toEqual([replaced]);
    expect(used(again).map((x) => x.index)).toEqual([0]);
    expect([again.chainSats, again.mempoolSats]).toEqual([13_000, 0]);
  });

  it('an address found later brings the transactions it shares with known ones, counted against all', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 10_000 }], block: 800_000 });
    const first = await scan(new MemorySource(chain), undefined, 2);
    // a payment to 0/2 and 0/3 in one transaction: 0/3 lies past the gap of the first scan
    const both = chain.pay({
      to: [
        { address: recv(2), value: 1_000 },
        { address: recv(3), value: 2_000 },
      ],
      block: 800_001,
    });
    const again = await scan(new MemorySource(chain), first, 2);
    expect(again.txs.find((t) => t.txid === both)!.receivedSats).toBe(3_000);
  });
});

describe('stopping', () => {
  it('a scan whose signal aborts stops before its next call', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(0), value: 1_000 }], block: 800_000 });
    const stop = new AbortController();
    const source = new MemorySource(chain);
    const original = source.address.bind(source);
    source.address = async (a: string) => {
      if (source.calls.address === 2) stop.abort(new Error('shutting down'));
      return original(a);
    };
    await expect(
      scanWallet(source, {
        addresses: wallet,
        gapLimit: 20,
        known: [],
        unconfirmed: [],
        signal: stop.signal,
      }),
    ).rejects.toThrow('shutting down');
    expect(source.calls.address).toBe(3);
  });
});

describe('listed addresses', () => {
  it('are each asked once, with no gap walked', async () => {
    const chain = new FakeChain();
    chain.pay({ to: [{ address: recv(5), value: 1_000 }], block: 800_000 });
    const listed = new Addresses(parseWatch([recv(5), recv(9)], 'mainnet'));
    const source = new MemorySource(chain);
    const r = await scanWallet(source, {
      addresses: listed,
      gapLimit: 20,
      known: [],
      unconfirmed: [],
      signal: NEVER,
    });
    expect(source.calls).toEqual({ address: 2, txs: 1, chainTxs: 0 });
    expect(r.chainSats).toBe(1_000);
  });
});
