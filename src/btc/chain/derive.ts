/**
 * The addresses of a watch key: chain `c` (0 receive, 1 change), index `i`. Pure; the chain nodes
 * are derived once and kept, so an address costs one child derivation.
 */
import type { HDKey } from '@scure/bip32';
import { p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import { btcNetwork, type Watch, type Script, type Network } from './keys.js';

/** The address of a public key in a script, on a network. */
export function addressOf(publicKey: Uint8Array, script: Script, network: Network): string {
  const net = btcNetwork(network);
  const out =
    script === 'p2pkh'
      ? p2pkh(publicKey, net)
      : script === 'p2wpkh'
        ? p2wpkh(publicKey, net)
        : script === 'p2sh-p2wpkh'
          ? p2sh(p2wpkh(publicKey, net), net)
          : p2tr(publicKey.length === 33 ? publicKey.slice(1) : publicKey, undefined, net);
  return out.address;
}

export class Addresses {
  private readonly nodes: (HDKey | null)[];

  constructor(private readonly watch: Watch) {
    this.nodes =
      watch.kind === 'addresses'
        ? []
        : watch.chains.map((steps) => {
            let node = watch.node;
            for (const s of steps) node = node?.deriveChild(s) ?? null;
            return node;
          });
  }

  /** The chains (receive, change, …); a list of addresses is one. */
  get chains(): number {
    return this.watch.kind === 'addresses' ? 1 : this.watch.chains.length;
  }

  /** Each chain runs on until the gap limit; otherwise every address is listed by `fixed`. */
  get ranged(): boolean {
    return this.watch.kind !== 'addresses' && this.watch.ranged;
  }

  /** The addresses of a key that is not ranged, or the listed ones, each with its place. */
  fixed(): { chain: number; index: number; address: string }[] {
    const w = this.watch;
    if (w.kind === 'addresses') return w.addresses.map((address, index) => ({ chain: 0, index, address }));
    if (w.ranged) return [];
    return this.nodes.map((node, chain) => ({
      chain,
      index: 0,
      address: addressOf(node?.publicKey ?? w.publicKey!, w.script, w.network),
    }));
  }

  /** The address at `index` of a ranged chain. */
  address(chain: number, index: number): string {
    const w = this.watch;
    const node = this.nodes[chain];
    if (w.kind === 'addresses' || !w.ranged || !node) throw new RangeError(`no ranged chain ${chain}`);
    return addressOf(node.deriveChild(index).publicKey!, w.script, w.network);
  }

  /** The first receive address: how the API shows a watch key without showing the key. */
  first(): string {
    return this.ranged ? this.address(0, 0) : this.fixed()[0]!.address;
  }
}
