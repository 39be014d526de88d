import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import { untilAborted } from '../../shared/abort.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import { Refusal, conflict, notFound, unavailable } from '../../shared/refusal.js';
import { getWallet, walletMoves } from '../ledger/repository.js';
import type { Network } from './keys.js';
import { matchMoves, suggest, type TxView } from './match.js';
import * as repo from './repository.js';
import { scanWallet, type ChainSource } from './scan.js';
import type { ChainComparisonJson } from './schemas.js';
import { keyLibraries } from './watch.js';

export interface ChainDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Ends every scan under way. */
  shutdown: AbortSignal;
  /** The Esplora; null when ESPLORA_URL is not set, and then nothing is asked of anyone. */
  source: ChainSource | null;
  network: Network;
  gapLimit: number;
  /** The `chain` feed of /health: the last scan, its failures. */
  health: FeedHealth;
}

export interface ScanSummary {
  wallet: number;
  calls: number;
  ms: number;
  addressesUsed: number;
  /** Transactions read, new or changed. */
  transactions: number;
  /** The watch key changed during the scan, whose findings were then dropped. */
  stale: boolean;
}

/** Watched wallets against the chain: scans (one at a time per wallet) and the comparison with the ledger. */
export class ChainService {
  private readonly running = new Map<number, Promise<ScanSummary>>();

  constructor(private readonly deps: ChainDeps) {}

  get enabled(): boolean {
    return this.deps.source !== null;
  }

  /**
   * Scans a wallet; a scan of it under way is joined, not repeated. The scan stops at shutdown
   * only: a caller whose `signal` aborts stops waiting, and the scan goes on for the others.
   */
  scan(wallet: number, signal?: AbortSignal): Promise<ScanSummary> {
    let work = this.running.get(wallet);
    if (!work) {
      work = this.runScan(wallet).finally(() => this.running.delete(wallet));
      this.running.set(wallet, work);
    }
    return untilAborted(work, signal);
  }

  /**
   * A scan asked for now (POST …/chain/scan), its outcome told to the `chain` feed; a refusal
   * (no key, scans off) and a caller who stopped waiting are not the Esplora's failures.
   */
  async scanNow(wallet: number, signal?: AbortSignal): Promise<ScanSummary> {
    const { health, clock, shutdown } = this.deps;
    try {
      const summary = await this.scan(wallet, signal);
      health.success(clock.now());
      return summary;
    } catch (e) {
      if (!(e instanceof Refusal) && !shutdown.aborted && !signal?.aborted) health.failure(e, clock.now());
      throw e;
    }
  }

  /**
   * Every watched wallet in turn: the hourly job. A wallet that fails does not keep the others
   * from their scan, nor does a later one's success hide its failure from the feed.
   */
  async scanAll(): Promise<ScanSummary[]> {
    const { health, shutdown, clock } = this.deps;
    const done: ScanSummary[] = [];
    let failed: unknown = null;
    const wallets = await repo.watchedWallets(this.deps.db);
    for (const { wallet } of wallets) {
      if (shutdown.aborted) return done;
      try {
        done.push(await this.scan(wallet));
      } catch (e) {
        if (shutdown.aborted) return done;
        failed ??= e;
        this.deps.log.warn({ wallet, err: (e as Error).message }, 'chain: a wallet’s scan failed');
      }
    }
    const calls = done.reduce((s, d) => s + d.calls, 0);
    health.detail = `${wallets.length} watched wallet(s); last scan ${clock.now().toISOString()}: ${done.length} scanned, ${calls} calls`;
    if (failed) health.failure(failed, clock.now());
    else health.success(clock.now());
    return done;
  }

  private async runScan(wallet: number): Promise<ScanSummary> {
    const { source } = this.deps;
    const row = await this.watched(wallet);
    if (!source) throw unavailable('chain scans are off: ESPLORA_URL is not set');
    if (row.network !== this.deps.network)
      throw conflict(
        `wallet ${wallet}'s watch key is of ${row.network} and CHAIN_NETWORK is ${this.deps.network}; set the key again`,
      );
    return this.scanWatched(wallet, row, source);
  }

  private async scanWatched(wallet: number, row: repo.WatchRow, source: ChainSource): Promise<ScanSummary> {
    const { db, clock, shutdown } = this.deps;
    const { storedWatch, Addresses } = await keyLibraries();
    const watch = storedWatch(row.kind, row.key, row.network);
    const started = clock.monotonicMs();
    const known = await repo.knownAddresses(db, wallet);
    const result = await scanWallet(source, {
      addresses: new Addresses(watch),
      gapLimit: this.deps.gapLimit,
      known: known.map((k) => ({
        chain: k.chain,
        index: k.idx,
        address: k.address,
        chainTxCount: k.chain_tx_count,
        mempoolTxCount: k.mempool_tx_count,
      })),
      unconfirmed: await repo.unconfirmedTxids(db, wallet),
      signal: shutdown,
    });
    const now = clock.now();
    const stale = await db.transaction().execute(async (trx) => {
      const current = await repo.lockWatch(trx, wallet);
      if (current?.key !== row.key) return true;
      await repo.deleteAddresses(trx, wallet);
      await repo.insertAddresses(
        trx,
        result.addresses.map((a) => ({
          wallet,
          chain: a.chain,
          idx: a.index,
          address: a.address,
          chain_tx_count: a.chainTxCount,
          mempool_tx_count: a.mempoolTxCount,
          chain_sats: a.chainSats,
          mempool_sats: a.mempoolSats,
        })),
      );
      await repo.upsertTxs(
        trx,
        result.txs.map((t) => ({
          wallet,
          txid: t.txid,
          confirmed: t.confirmed,
          block_height: t.blockHeight,
          block_time: t.blockTime === null ? null : new Date(t.blockTime * 1000),
          seen_at: now,
          received_sats: t.receivedSats,
          sent_sats: t.sentSats,
          fee_sats: t.feeSats,
          all_inputs_ours: t.allInputsOurs,
        })),
      );
      await repo.deleteTxs(trx, wallet, result.gone);
      await repo.recordScan(trx, wallet, {
        scanned_at: now,
        chain_sats: result.chainSats,
        mempool_sats: result.mempoolSats,
        gap_limit: this.deps.gapLimit,
      });
      return false;
    });
    const summary = {
      wallet,
      calls: result.calls,
      ms: Math.round(clock.monotonicMs() - started),
      addressesUsed: result.addresses.filter((a) => a.chainTxCount + a.mempoolTxCount > 0).length,
      transactions: result.txs.length,
      stale,
    };
    this.deps.log.info(
      summary,
      stale ? 'chain: scan dropped, the watch key changed meanwhile' : 'chain: scanned',
    );
    return summary;
  }

  private async watched(wallet: number): Promise<repo.WatchRow> {
    const row = await repo.getWatch(this.deps.db, wallet);
    if (row) return row;
    if (!(await getWallet(this.deps.db, wallet))) throw notFound(`no wallet ${wallet}`);
    throw conflict(
      `wallet ${wallet} has no watch key; set one with PATCH /api/wallets/${wallet} {"watch": …}`,
    );
  }

  /** The wallet on the chain against the ledger: what the last scan found, matched to the events. */
  async comparison(wallet: number): Promise<ChainComparisonJson> {
    const { db } = this.deps;
    const row = await this.watched(wallet);
    const [parts, moves] = [await repo.txParts(db, wallet), await walletMoves(db, wallet)];
    const views = new Map<string, TxView>();
    for (const p of parts) {
      const view = views.get(p.txid) ?? {
        txid: p.txid,
        confirmed: p.confirmed,
        time: p.block_time ?? p.seen_at,
        feeSats: p.fee_sats,
        parts: [],
      };
      (view.parts as TxView['parts'][number][]).push({
        wallet: p.wallet,
        netSats: p.received_sats - p.sent_sats,
        paidFee: p.all_inputs_ours,
      });
      views.set(p.txid, view);
    }
    const txs = [...views.values()].sort(
      (a, b) => a.time.getTime() - b.time.getTime() || a.txid.localeCompare(b.txid),
    );
    const matched = matchMoves(wallet, txs, moves);
    const own = (t: TxView) => t.parts.find((p) => p.wallet === wallet)!;
    const unmatched = txs.filter((t) => !matched.has(t.txid) && own(t).netSats !== 0);
    const ledger = moves.reduce((s, m) => s + m.delta, 0);
    const scanned = row.scanned_at !== null;
    return {
      wallet,
      watch: { kind: row.kind, first_address: row.first_address, fingerprint: row.fingerprint },
      scanned_at: row.scanned_at?.toISOString() ?? null,
      chain_sats: row.chain_sats,
      mempool_sats: row.mempool_sats,
      ledger_sats: ledger,
      difference_sats: scanned ? row.chain_sats! + row.mempool_sats! - ledger : null,
      gap_limit: row.gap_limit ?? this.deps.gapLimit,
      addresses_used: (await repo.knownAddresses(db, wallet)).filter(
        (a) => a.chain_tx_count + a.mempool_tx_count > 0,
      ).length,
      transactions: txs
        .map((t) => ({
          txid: t.txid,
          time: t.time.toISOString(),
          confirmed: t.confirmed,
          net_sats: own(t).netSats,
          fee_sats: own(t).paidFee ? t.feeSats : 0,
          event_id: matched.get(t.txid)?.[0] ?? null,
          event_ids: matched.get(t.txid) ?? [],
        }))
        .reverse(),
      unmatched: unmatched.map((t) => t.txid),
      suggestions: unmatched.flatMap((t) => suggest(wallet, t)),
    };
  }

  /** Each watched wallet's difference after its last scan (null before one): the MQTT sensors. */
  async differences(): Promise<{ wallet: number; name: string; difference_sats: number | null }[]> {
    const rows = await repo.watchedWallets(this.deps.db);
    return rows.map((r) => ({
      wallet: r.wallet,
      name: r.name,
      difference_sats: r.scanned_at === null ? null : r.chain_sats! + r.mempool_sats! - r.balance,
    }));
  }
}
