import { createHash } from 'node:crypto';
import { hex } from '@scure/base';
import { Address, NETWORK, OutScript } from '@scure/btc-signer';
import { FakeHttpServer, type FakeReply, type FakeRequest } from './http.js';

/**
 * A fake Esplora HTTP API on 127.0.0.1 (Blockstream's API.md): `GET /address/:address` with
 * `chain_stats` and `mempool_stats`, `GET /address/:address/txs` (the unconfirmed ones, newest
 * first, up to 50, then the newest 25 confirmed), `GET /address/:address/txs/chain[/:last_seen_txid]`
 * (25 confirmed a page, newest first) and `/txs/mempool`, under a base path as mempool serves it
 * (`/api`). Transactions carry the documented fields: txid, version, locktime, size, weight, fee,
 * vin[] with prevout, vout[] with scriptpubkey_address and value, status. Faults: the transport's
 * (429 with Retry-After, a delay, a dropped connection) and a body cut off in the middle.
 */

/** An address outside the household: where bought sats come from and spent sats go. */
export const OUTSIDE = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

export interface FakeLine {
  address: string;
  value: number;
}

export interface FakeTxSpec {
  /** Inputs (the outputs they spend): an outside address by default. */
  from?: FakeLine[];
  to: FakeLine[];
  fee?: number;
  /** The block height it is confirmed in; null (the default) leaves it in the mempool. */
  block?: number | null;
}

interface FakeTx {
  txid: string;
  from: FakeLine[];
  to: FakeLine[];
  fee: number;
  block: number | null;
  /** Creation order: within a block, a later one sits later. */
  seq: number;
}

/** Block `h` is stamped 10 minutes after block `h - 1`, from 2024-01-01T00:00:00Z at height 823,000. */
export const blockTime = (height: number) => 1_704_067_200 + (height - 823_000) * 600;

/** The chain's transactions as Esplora lists them, without HTTP: the fake server's model, and a pure test's. */
export class FakeChain {
  private readonly txs = new Map<string, FakeTx>();
  private readonly byAddress = new Map<string, FakeTx[]>();
  /** Each address's confirmed history as answered, until the chain changes: a benchmark's fake must not cost more than the calls it answers. */
  private readonly answers = new Map<string, ReturnType<typeof txJson>[]>();
  private seq = 0;

  /** Adds a transaction; answers its txid. */
  pay(spec: FakeTxSpec): string {
    const seq = ++this.seq;
    const txid = createHash('sha256').update(`fake tx ${seq}`).digest('hex');
    const fee = spec.fee ?? 0;
    const out = spec.to.reduce((s, l) => s + l.value, 0);
    const tx: FakeTx = {
      txid,
      from: spec.from ?? [{ address: OUTSIDE, value: out + fee }],
      to: spec.to,
      fee,
      block: spec.block ?? null,
      seq,
    };
    this.txs.set(txid, tx);
    this.answers.clear();
    for (const a of new Set([...tx.from, ...tx.to].map((l) => l.address))) {
      const list = this.byAddress.get(a) ?? [];
      list.push(tx);
      this.byAddress.set(a, list);
    }
    return txid;
  }

  /** Mines a mempool transaction into a block. */
  confirm(txid: string, block: number): void {
    this.txs.get(txid)!.block = block;
    this.answers.clear();
  }

  /** A mempool transaction is gone (replaced, or expired from the mempool). */
  drop(txid: string): void {
    const tx = this.txs.get(txid)!;
    this.txs.delete(txid);
    this.answers.clear();
    for (const [a, list] of this.byAddress)
      this.byAddress.set(
        a,
        list.filter((t) => t !== tx),
      );
  }

  /** `GET /address/:address` */
  stats(address: string) {
    const sums = (confirmed: boolean) => {
      const txs = (this.byAddress.get(address) ?? []).filter((t) => (t.block !== null) === confirmed);
      const funded = txs.flatMap((t) => t.to.filter((l) => l.address === address));
      const spent = txs.flatMap((t) => t.from.filter((l) => l.address === address));
      return {
        tx_count: txs.length,
        funded_txo_count: funded.length,
        funded_txo_sum: funded.reduce((s, l) => s + l.value, 0),
        spent_txo_count: spent.length,
        spent_txo_sum: spent.reduce((s, l) => s + l.value, 0),
      };
    };
    return { address, chain_stats: sums(true), mempool_stats: sums(false) };
  }

  /** `GET /address/:address/txs`: up to 50 unconfirmed, newest first, then the newest 25 confirmed. */
  txsPage(address: string) {
    return [...this.mempool(address), ...this.confirmed(address).slice(0, 25)];
  }

  /** `GET /address/:address/txs/chain[/:last_seen_txid]`; null when `last` is not in the history. */
  chainPage(address: string, last?: string) {
    const list = this.confirmed(address);
    if (last === undefined) return list.slice(0, 25);
    const i = list.findIndex((t) => t.txid === last);
    return i < 0 ? null : list.slice(i + 1, i + 26);
  }

  /** `GET /address/:address/txs/mempool` */
  mempool(address: string) {
    return (this.byAddress.get(address) ?? [])
      .filter((t) => t.block === null)
      .sort((a, b) => b.seq - a.seq)
      .slice(0, 50)
      .map((t) => txJson(t));
  }

  /** Newest first: by block, then by place in the block. */
  private confirmed(address: string) {
    let list = this.answers.get(address);
    if (!list) {
      list = (this.byAddress.get(address) ?? [])
        .filter((t) => t.block !== null)
        .sort((a, b) => b.block! - a.block! || b.seq - a.seq)
        .map((t) => txJson(t));
      this.answers.set(address, list);
    }
    return list;
  }
}

export class FakeEsplora {
  /** What the fake answers from; tests add, confirm and drop transactions here. */
  readonly chain = new FakeChain();
  private truncate = 0;

  private constructor(
    readonly server: FakeHttpServer,
    readonly base: string,
  ) {
    const at = (rest: string) => new RegExp(`^${base}/address/([^/]+)${rest}$`);
    server.on('GET', at(''), (r) => this.answer(r, (a) => this.chain.stats(a)));
    server.on('GET', at('/txs'), (r) => this.answer(r, (a) => this.chain.txsPage(a)));
    server.on('GET', at('/txs/mempool'), (r) => this.answer(r, (a) => this.chain.mempool(a)));
    server.on('GET', at('/txs/chain'), (r) => this.answer(r, (a) => this.chain.chainPage(a)));
    server.on('GET', at('/txs/chain/([0-9a-f]{64})'), (r) =>
      this.answer(r, (a, last) => this.chain.chainPage(a, last)),
    );
  }

  static async start(base = '/api'): Promise<FakeEsplora> {
    return new FakeEsplora(await FakeHttpServer.start(), base);
  }

  /** The base URL of the API, as ESPLORA_URL takes it. */
  get url(): string {
    return `${this.server.url}${this.base}`;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  pay(spec: FakeTxSpec): string {
    return this.chain.pay(spec);
  }

  /** The next `times` answers are cut off in the middle of their JSON. */
  truncateNext(times = 1): void {
    this.truncate += times;
  }

  /** No fault any more, queued or standing. */
  heal(): void {
    this.truncate = 0;
    this.server.heal();
  }

  /** Requests that asked about `address` (its stats and its history pages). */
  callsFor(address: string): number {
    return this.server.requests.filter((r) => r.path.includes(`/address/${address}`)).length;
  }

  private answer(req: FakeRequest, body: (address: string, last: string | undefined) => unknown): FakeReply {
    const m = /\/address\/([^/]+)(?:\/txs(?:\/chain\/([0-9a-f]{64}))?)?/.exec(req.path)!;
    const address = decodeURIComponent(m[1]!);
    if (!validAddress(address)) return { status: 400, text: 'Invalid Bitcoin address' };
    const json = body(address, m[2]);
    if (json === null) return { status: 422, text: 'last_seen_txid not found in the history' };
    if (this.truncate > 0) {
      this.truncate--;
      const text = JSON.stringify(json);
      return {
        text: text.slice(0, Math.floor(text.length / 2)),
        headers: { 'content-type': 'application/json' },
      };
    }
    return { json };
  }
}

function validAddress(address: string): boolean {
  try {
    Address(NETWORK).decode(address);
    return true;
  } catch {
    return false;
  }
}

const TYPE_NAMES: Record<string, string> = { pkh: 'p2pkh', sh: 'p2sh', wpkh: 'v0_p2wpkh', tr: 'v1_p2tr' };

function output(line: FakeLine) {
  const decoded = Address(NETWORK).decode(line.address);
  return {
    scriptpubkey: hex.encode(OutScript.encode(decoded)),
    scriptpubkey_asm: '',
    scriptpubkey_type: TYPE_NAMES[decoded.type] ?? decoded.type,
    scriptpubkey_address: line.address,
    value: line.value,
  };
}

function txJson(t: FakeTx) {
  const status =
    t.block === null
      ? { confirmed: false }
      : {
          confirmed: true,
          block_height: t.block,
          block_hash: createHash('sha256').update(`block ${t.block}`).digest('hex'),
          block_time: blockTime(t.block),
        };
  return {
    txid: t.txid,
    version: 2,
    locktime: 0,
    vin: t.from.map((line, i) => ({
      txid: createHash('sha256').update(`prev ${t.txid} ${i}`).digest('hex'),
      vout: 0,
      prevout: output(line),
      scriptsig: '',
      scriptsig_asm: '',
      witness: ['30440220', '02'],
      is_coinbase: false,
      sequence: 4_294_967_293,
    })),
    vout: t.to.map(output),
    size: 222,
    weight: 561,
    fee: t.fee,
    status,
  };
}
