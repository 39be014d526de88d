/**
 * A wallet's watch key, read and checked: an account xpub, ypub or zpub (tpub, upub, vpub on the
 * test networks), a descriptor of one key, or a list of addresses. Pure. Refusals name
 * `body.watch` and what is wrong, never the key itself: it is as private as the token.
 */
import { createBase58check, hex } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { Address, NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { invalid } from '../../shared/refusal.js';
import { parseDescriptor, descriptorChecksum, type Script } from './descriptor.js';

export type { Script } from './descriptor.js';

import { NETWORKS, type Network } from '../../config.js';

export { NETWORKS, type Network } from '../../config.js';

export type ExtendedKind = 'xpub' | 'ypub' | 'zpub' | 'tpub' | 'upub' | 'vpub';
export type WatchKind = ExtendedKind | 'descriptor' | 'addresses';

/** A key that addresses are derived from. */
export interface KeyWatch {
  kind: Exclude<WatchKind, 'addresses'>;
  network: Network;
  script: Script;
  /** What is stored: the extended key, or the descriptor with its checksum. */
  text: string;
  /** The extended key, or null for a descriptor of one plain public key. */
  node: HDKey | null;
  /** The plain public key of such a descriptor. */
  publicKey: Uint8Array | null;
  /** The unhardened steps after the key, one list per chain (receive first, then change). */
  chains: number[][];
  /** Each chain is a range `…/*` (false: one address per chain). */
  ranged: boolean;
  fingerprint: string;
}

export interface AddressWatch {
  kind: 'addresses';
  network: Network;
  /** What is stored: the addresses, one a line. */
  text: string;
  addresses: string[];
  fingerprint: string;
}

export type Watch = KeyWatch | AddressWatch;

/** The networks' address encodings, as @scure/btc-signer names them. */
export function btcNetwork(network: Network): typeof NETWORK {
  if (network === 'mainnet') return NETWORK;
  return network === 'regtest' ? { ...TEST_NETWORK, bech32: 'bcrt' } : TEST_NETWORK;
}

const isMain = (n: Network) => n === 'mainnet';
const KEY_NET = (n: Network) => (isMain(n) ? 'mainnet' : 'test-network');

/** SLIP-132's version bytes of Bitcoin's extended keys. */
const VERSIONS: Record<
  number,
  { name: string; private: boolean; main: boolean; script?: Script; pub?: number }
> = {
  0x0488b21e: { name: 'xpub', private: false, main: true, script: 'p2pkh' },
  0x049d7cb2: { name: 'ypub', private: false, main: true, script: 'p2sh-p2wpkh' },
  0x04b24746: { name: 'zpub', private: false, main: true, script: 'p2wpkh' },
  0x043587cf: { name: 'tpub', private: false, main: false, script: 'p2pkh' },
  0x044a5262: { name: 'upub', private: false, main: false, script: 'p2sh-p2wpkh' },
  0x045f1cf6: { name: 'vpub', private: false, main: false, script: 'p2wpkh' },
  0x0295b43f: { name: 'Ypub', private: false, main: true },
  0x02aa7ed3: { name: 'Zpub', private: false, main: true },
  0x024289ef: { name: 'Upub', private: false, main: false },
  0x02575483: { name: 'Vpub', private: false, main: false },
  0x0488ade4: { name: 'xprv', private: true, main: true, pub: 0x0488b21e },
  0x049d7878: { name: 'yprv', private: true, main: true, pub: 0x049d7cb2 },
  0x04b2430c: { name: 'zprv', private: true, main: true, pub: 0x04b24746 },
  0x04358394: { name: 'tprv', private: true, main: false, pub: 0x043587cf },
  0x044a4e28: { name: 'uprv', private: true, main: false, pub: 0x044a5262 },
  0x045f18bc: { name: 'vprv', private: true, main: false, pub: 0x045f1cf6 },
  0x0295b005: { name: 'Yprv', private: true, main: true },
  0x02aa7a99: { name: 'Zprv', private: true, main: true },
  0x024285b5: { name: 'Uprv', private: true, main: false },
  0x02575048: { name: 'Vprv', private: true, main: false },
};

const base58check = createBase58check(sha256);
const refuse = (why: string) => invalid(`body.watch: ${why}`);
const PRIVATE =
  'a watch-only wallet needs the public key, which can never spend; satwatt refuses to hold a private one';

/** The extended public key of `text`, checked against the network; refuses private and multisig keys. */
function extendedKey(text: string, network: Network): { node: HDKey; kind: string; script?: Script } {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(text);
  } catch {
    throw refuse(
      'not a valid extended key: its base58 checksum does not match (a character is wrong or missing)',
    );
  }
  if (bytes.length !== 78) throw refuse('not a valid extended key: it is not 78 bytes long');
  const version = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  const v = VERSIONS[version];
  if (!v) throw refuse('not an extended key of Bitcoin (xpub, ypub, zpub, tpub, upub or vpub)');
  if (v.private) throw refuse(`this is a private key (${v.name}); ${PRIVATE}`);
  if (!v.script)
    throw refuse(
      `${v.name} is a multisig key; only single-key wallets are watched (give one key's descriptor)`,
    );
  if (v.main !== isMain(network))
    throw refuse(
      `a ${v.main ? 'mainnet' : 'test-network'} key (${v.name}) on the ${network} setting (CHAIN_NETWORK); it needs a ${KEY_NET(network)} key`,
    );
  try {
    return {
      node: HDKey.fromExtendedKey(text, { public: version, private: 0 }),
      kind: v.name,
      script: v.script,
    };
  } catch {
    throw refuse(`not a valid extended public key (${v.name}): its public key is not a point of the curve`);
  }
}

const fingerprintOf = (publicKey: Uint8Array) => hex.encode(hash160(publicKey).slice(0, 4));

function keyWatch(text: string, network: Network): KeyWatch {
  const { node, kind, script } = extendedKey(text, network);
  return {
    kind: kind as ExtendedKind,
    network,
    script: script!,
    text,
    node,
    publicKey: null,
    chains: [[0], [1]],
    ranged: true,
    fingerprint: fingerprintOf(node.publicKey!),
  };
}

function descriptorWatch(text: string, network: Network): KeyWatch {
  let d;
  try {
    d = parseDescriptor(text);
  } catch (e) {
    throw refuse((e as Error).message);
  }
  const base = { kind: 'descriptor' as const, network, script: d.script, chains: d.chains, ranged: d.ranged };
  const body = text.trim().split('#')[0]!;
  const stored = `${body}#${descriptorChecksum(body)}`;
  if (/^[0-9a-fA-F]+$/.test(d.key)) {
    const publicKey = plainKey(d.key, d.script);
    return {
      ...base,
      text: stored,
      node: null,
      publicKey,
      chains: [[]],
      ranged: false,
      fingerprint: fingerprintOf(publicKey),
    };
  }
  if (/^[5KLc9]/.test(d.key) && d.key.length <= 52) throw refuse(`this is a private key (WIF); ${PRIVATE}`);
  const { node } = extendedKey(d.key, network);
  return {
    ...base,
    ...(d.bare ? { chains: [[0], [1]], ranged: true } : {}),
    text: stored,
    node,
    publicKey: null,
    fingerprint: fingerprintOf(node.publicKey!),
  };
}

/** A hex public key as its script takes it: 33 bytes (65 for pkh), or 32 x-only bytes for tr. */
function plainKey(text: string, script: Script): Uint8Array {
  const bytes = hex.decode(text.toLowerCase());
  const compressed = bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3);
  if (script === 'p2tr' && (bytes.length === 32 || compressed))
    return bytes.length === 32 ? bytes : bytes.slice(1);
  if (compressed || (script === 'p2pkh' && bytes.length === 65 && bytes[0] === 4)) return bytes;
  throw refuse(
    script === 'p2tr'
      ? 'tr() takes a 32-byte x-only or 33-byte compressed public key'
      : script === 'p2pkh'
        ? 'pkh() takes a 33-byte compressed or 65-byte uncompressed public key'
        : 'a segwit script takes a 33-byte compressed public key',
  );
}

/** The address in its one canonical form (bech32 in lower case), or a refusal naming the list position. */
function address(text: string, network: Network, where: string): string {
  const lower = /^(bc|tb|bcrt)1/i.test(text) ? text.toLowerCase() : text;
  try {
    const coder = Address(btcNetwork(network));
    return coder.encode(coder.decode(lower));
  } catch {
    const other = NETWORKS.find((n) => n !== network && decodes(lower, n));
    throw refuse(
      other
        ? `${where}is an address of ${other === 'mainnet' ? 'mainnet' : 'a test network'}, not of the ${network} setting (CHAIN_NETWORK)`
        : `${where}is not a Bitcoin address (its checksum or its form is wrong)`,
    );
  }
}

function decodes(text: string, network: Network): boolean {
  try {
    Address(btcNetwork(network)).decode(text);
    return true;
  } catch {
    return false;
  }
}

/** At most this many listed addresses: each is asked of the Esplora on every scan. */
export const MAX_ADDRESSES = 1000;

function addressWatch(list: string[], network: Network): AddressWatch {
  if (list.length === 0) throw refuse('the list of addresses is empty');
  if (list.length > MAX_ADDRESSES) throw refuse(`at most ${MAX_ADDRESSES} addresses are watched per wallet`);
  const addresses = list.map((a, i) => address(a.trim(), network, list.length > 1 ? `entry ${i + 1} ` : ''));
  const seen = new Set<string>();
  addresses.forEach((a, i) => {
    if (seen.has(a)) throw refuse(`entry ${i + 1} is listed twice`);
    seen.add(a);
  });
  const text = addresses.join('\n');
  return {
    kind: 'addresses',
    network,
    text,
    addresses,
    fingerprint: hex.encode(sha256(new TextEncoder().encode(text)).slice(0, 4)),
  };
}

const EXTENDED = /^[xyztuvXYZUV](pub|prv)[1-9A-HJ-NP-Za-km-z]{100,}$/;

/**
 * A watch key as the API takes it: a string (an extended key, a descriptor, or addresses
 * separated by spaces, commas or lines) or an array of addresses.
 */
export function parseWatch(input: string | readonly string[], network: Network): Watch {
  if (typeof input !== 'string') return addressWatch([...input], network);
  const text = input.trim();
  if (text === '') throw refuse('is empty');
  if (/^[a-z]+\(/.test(text)) return descriptorWatch(text, network);
  if (EXTENDED.test(text)) return keyWatch(text, network);
  return addressWatch(text.split(/[\s,]+/).filter(Boolean), network);
}

/** The watch a stored text was made from, read again (the network is the one stored with it). */
export function storedWatch(kind: WatchKind, text: string, network: Network): Watch {
  return kind === 'addresses' ? addressWatch(text.split('\n'), network) : parseWatch(text, network);
}
