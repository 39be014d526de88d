import { Addresses } from '../src/btc/chain/derive.js';
import { parseWatch } from '../src/btc/chain/keys.js';
import { scanWallet, type ChainSource, type KnownAddress, type ScanResult } from '../src/btc/chain/scan.js';
import { BUDGET_LIMITS, CallBudget } from '../src/providers/budget.js';
import { CHAIN_PAGE, EsploraClient } from '../src/providers/esplora.js';
import { systemClock } from '../src/shared/clock.js';
import { FakeEsplora } from '../test/fakes/esplora.js';
import { ZPUB } from '../test/support/chain.js';
import { row, type Benchmark } from './lib.js';

/** 40 used receive and 20 used change addresses; the first receive address is reused 200 times (8 pages). */
const USED = { receive: 40, change: 20 };
const TXS = 1_000;
const GAP = 20;
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * A scan of a wallet with 60 used addresses and 1,000 transactions through the Esplora adapter
 * (budget, timeouts, retries, the TypeBox check and the plausibility of every answer) and the
 * gap-limit walk with its derivations, first and again with nothing new, beside the same URLs
 * fetched bare (fetch and JSON.parse, one after the other) from the same fake in the same run.
 * The calls beside the fewest a scan can make: one per address checked, one per page of 25.
 */
export const chainBench: Benchmark = {
  name: 'chain',
  async run() {
    const esplora = await FakeEsplora.start();
    try {
      const wallet = new Addresses(parseWatch(ZPUB, 'mainnet'));
      const used = [
        ...Array.from({ length: USED.receive }, (_, i) => wallet.address(0, i)),
        ...Array.from({ length: USED.change }, (_, i) => wallet.address(1, i)),
      ];
      const perAddress = new Map<string, number>();
      for (let i = 0; i < TXS; i++) {
        const address = i < 200 ? used[0]! : used[1 + ((i - 200) % (used.length - 1))]!;
        perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
        esplora.pay({ to: [{ address, value: 10_000 + i }], block: 823_000 + i });
      }
      const fewest = {
        first:
          USED.receive +
          USED.change +
          2 * GAP +
          [...perAddress.values()].reduce((s, n) => s + Math.max(1, Math.ceil(n / CHAIN_PAGE)), 0),
        again: USED.receive + USED.change + 2 * GAP,
      };
      /** A client with a budget of its own (the real limit), so that rounds do not share its window. */
      const source = (): ChainSource => {
        const client = new EsploraClient({
          clock: systemClock,
          budget: new CallBudget('esplora', BUDGET_LIMITS.esplora, systemClock),
          maxBytes: 16 * 1024 * 1024,
          baseUrl: esplora.url,
          timeoutMs: 10_000,
        });
        return {
          address: (a, signal) => client.address(a, { signal }),
          txs: (a, signal) => client.txs(a, { signal }),
          chainTxs: (a, last, signal) => client.chainTxs(a, last, { signal }),
        };
      };
      const scan = (known: KnownAddress[] = []) =>
        scanWallet(source(), {
          addresses: wallet,
          gapLimit: GAP,
          known,
          unconfirmed: [],
          signal: new AbortController().signal,
        });
      const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
        const started = performance.now();
        const v = await fn();
        return [performance.now() - started, v];
      };
      const bare = async (urls: string[]) => {
        for (const u of urls) JSON.parse(await (await fetch(u)).text());
      };
      const urlsOf = async (fn: () => Promise<ScanResult>) => {
        esplora.server.requests.length = 0;
        const r = await fn();
        return { r, urls: esplora.server.requests.map((q) => `${esplora.server.url}${q.path}`) };
      };

      const { r: first, urls: firstUrls } = await urlsOf(() => scan());
      const found = first.addresses.filter((a) => a.chainTxCount > 0).length;
      if (first.txs.length !== TXS || found !== used.length)
        throw new Error(
          `the scan found ${first.txs.length} transactions on ${first.addresses.length} addresses`,
        );
      const known = first.addresses;
      const { r: again, urls: againUrls } = await urlsOf(() => scan(known));
      const times = {
        first: [] as number[],
        firstBare: [] as number[],
        again: [] as number[],
        againBare: [] as number[],
      };
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours'];
        for (const which of order) {
          if (which === 'ours') {
            times.first.push((await timed(() => scan()))[0]);
            times.again.push((await timed(() => scan(known)))[0]);
          } else {
            times.firstBare.push((await timed(() => bare(firstUrls)))[0]);
            times.againBare.push((await timed(() => bare(againUrls)))[0]);
          }
        }
      }
      const note = `${used.length} used addresses, ${TXS} transactions, gap ${GAP}; medians of ${ROUNDS}`;
      return [
        row({
          name: 'chain scan, first: calls',
          unit: 'calls',
          value: first.calls,
          baselineName: 'one per address checked and per page of 25',
          baseline: fewest.first,
        }),
        row({
          name: 'chain scan, first: time',
          unit: 'ms',
          value: median(times.first),
          baselineName: `the same ${firstUrls.length} calls bare (fetch, JSON.parse)`,
          baseline: median(times.firstBare),
          note,
        }),
        row({
          name: 'chain scan, nothing new: calls',
          unit: 'calls',
          value: again.calls,
          baselineName: 'one per address checked',
          baseline: fewest.again,
        }),
        row({
          name: 'chain scan, nothing new: time',
          unit: 'ms',
          value: median(times.again),
          baselineName: `the same ${againUrls.length} calls bare`,
          baseline: median(times.againBare),
        }),
      ];
    } finally {
      await esplora.close();
    }
  },
};
