import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { EsploraClient } from '../../providers/esplora.js';
import type { WalletWatch } from '../ledger/wallets.js';
import { chainScanJob } from './jobs.js';
import { chainRoutes } from './routes.js';
import type { ChainSource } from './scan.js';
import { ChainService } from './service.js';
import { walletWatch } from './watch.js';

/** The feed of the scans in /health: off without ESPLORA_URL. */
const FEED = 'chain';

/** The household's Esplora as a scan's source, or null when ESPLORA_URL is not set. */
export function esploraOf(ctx: AppContext): ChainSource | null {
  const url = ctx.config.chain.esploraUrl;
  if (url === null) return null;
  const client = new EsploraClient({
    ...providerDeps(ctx, 'esplora'),
    baseUrl: url,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed(FEED, true),
  });
  // The household's own node: a scan that it asks to stay away fails at once (503, Retry-After)
  // rather than sleep through the pause holding the wallet's scan, which every caller would join.
  const o = (signal: AbortSignal) => ({ signal, onBusy: 'owner' as const });
  return {
    address: (a, signal) => client.address(a, o(signal)),
    txs: (a, signal) => client.txs(a, o(signal)),
    chainTxs: (a, last, signal) => client.chainTxs(a, last, o(signal)),
  };
}

/** The watch keys of the ledger's wallets, for the ledger service wherever it is built. */
export function walletWatchOf(ctx: Pick<AppContext, 'config'>): WalletWatch {
  return walletWatch(ctx.config.chain.network);
}

export function chainServiceOf(ctx: AppContext, source: ChainSource | null = esploraOf(ctx)): ChainService {
  const { gapLimit, network, esploraUrl } = ctx.config.chain;
  return new ChainService({
    db: ctx.database.db,
    clock: ctx.clock,
    log: ctx.log.child({ feature: FEED }),
    shutdown: ctx.shutdown,
    source,
    network,
    gapLimit,
    health: ctx.health.feed(FEED, esploraUrl !== null),
  });
}

/**
 * Watch-only wallets checked against the chain through the household's Esplora
 * (docs/chain.md): the routes, and the hourly scan of every watched wallet on the leader.
 */
export function createChainFeature(
  ctx: AppContext,
  deps: { chain: ChainService },
  opts: { firstRunDelayMs?: number } = {},
): Feature {
  const { chain } = deps;
  const health = ctx.health.feed(FEED);
  if (!chain.enabled) health.detail = 'off: ESPLORA_URL is not set';
  const log = ctx.log.child({ feature: FEED });
  return {
    name: FEED,
    routes: (app) => chainRoutes(app, chain),
    jobs: chain.enabled ? [chainScanJob(chain, { health, log, firstRunDelayMs: opts.firstRunDelayMs })] : [],
  };
}
