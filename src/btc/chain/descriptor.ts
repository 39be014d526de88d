/**
 * Output script descriptors of one key (BIP380 with BIP381/382/386 and BIP389's multipath), the
 * subset a single-key cold wallet exports: `pkh(KEY)`, `sh(wpkh(KEY))`, `wpkh(KEY)`, `tr(KEY)`,
 * an optional `#checksum`. Pure: the text in, its parts out, or an Error saying what is wrong
 * without repeating the key.
 */

export type Script = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr';

export interface Descriptor {
  script: Script;
  /** An extended public key (xpub, tpub) or a hex public key. */
  key: string;
  /** `[fingerprint/path]` as written, or null. */
  origin: string | null;
  /**
   * The unhardened steps after the key, one list per chain: `/<0;1>/*` gives [[0], [1]],
   * `/0/*` gives [[0]], a path without `*` one fixed address per list.
   */
  chains: number[][];
  /** Ends in `/*`: each chain is a range of addresses. */
  ranged: boolean;
  /** No path after an extended key: taken as an account key, receive `/0/*` and change `/1/*`. */
  bare: boolean;
}

const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]!;
  }
  return chk;
}

function expand(s: string): number[] | null {
  const symbols: number[] = [];
  const groups: number[] = [];
  for (const c of s) {
    const v = INPUT_CHARSET.indexOf(c);
    if (v < 0) return null;
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups.length = 0;
    }
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  else if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  return symbols;
}

/** The 8-character checksum of a descriptor without one (BIP380's descsum_create); null for a character outside its set. */
export function descriptorChecksum(script: string): string | null {
  const symbols = expand(script);
  if (!symbols) return null;
  const c = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

/** The script and its checksum, checked when one is given. */
export function splitChecksum(text: string): string {
  const hash = text.indexOf('#');
  if (hash < 0) {
    if (descriptorChecksum(text) === null)
      throw new Error('the descriptor holds a character no descriptor uses');
    return text;
  }
  const script = text.slice(0, hash);
  const given = text.slice(hash + 1);
  if (!/^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{8}$/.test(given))
    throw new Error('the descriptor checksum after # must be 8 characters of the bech32 set');
  const expected = descriptorChecksum(script);
  if (expected === null) throw new Error('the descriptor holds a character no descriptor uses');
  if (expected !== given) throw new Error('the descriptor checksum does not match: a character is wrong');
  return script;
}

const WRAPPERS: [prefix: string, suffix: string, script: Script][] = [
  ['sh(wpkh(', '))', 'p2sh-p2wpkh'],
  ['wpkh(', ')', 'p2wpkh'],
  ['pkh(', ')', 'p2pkh'],
  ['tr(', ')', 'p2tr'],
];

/** Reads a descriptor (with or without its checksum). */
export function parseDescriptor(text: string): Descriptor {
  const body = splitChecksum(text.trim());
  const wrap = WRAPPERS.find(([p, s]) => body.startsWith(p) && body.endsWith(s));
  if (!wrap)
    throw new Error('only descriptors of one key are watched: pkh(KEY), sh(wpkh(KEY)), wpkh(KEY) or tr(KEY)');
  const [prefix, suffix, script] = wrap;
  const inner = body.slice(prefix.length, body.length - suffix.length);
  if (script === 'p2tr' && inner.includes(','))
    throw new Error('tr() with a script tree is not watched; give its key-path descriptor tr(KEY)');
  if (/[(),{}]/.test(inner))
    throw new Error('only descriptors of one key are watched: pkh(KEY), sh(wpkh(KEY)), wpkh(KEY) or tr(KEY)');
  return { script, ...parseKeyExpression(inner) };
}

function parseKeyExpression(expr: string): Omit<Descriptor, 'script'> {
  let rest = expr;
  let origin: string | null = null;
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    if (end < 0) throw new Error('the key origin [fingerprint/path] is not closed');
    origin = rest.slice(0, end + 1);
    if (!/^\[[0-9a-fA-F]{8}(\/\d+['h]?)*\]$/.test(origin))
      throw new Error(
        'the key origin must be [8 hex digits of fingerprint/path], as in [d34db33f/84h/0h/0h]',
      );
    rest = rest.slice(end + 1);
  }
  if (rest.includes('[') || rest.includes(']'))
    throw new Error('a key has one origin [fingerprint/path] at most');
  const [key = '', ...steps] = rest.split('/');
  if (key === '') throw new Error('the descriptor names no key');
  if (/^[0-9a-fA-F]+$/.test(key) && steps.length > 0)
    throw new Error('a hex public key takes no derivation path');
  const ranged = steps.at(-1) === '*' || steps.at(-1) === "*'" || steps.at(-1) === '*h';
  if (ranged && steps.at(-1) !== '*')
    throw new Error(
      "hardened derivation (h or ') after a public key needs the private key; watch the account key",
    );
  const fixed = ranged ? steps.slice(0, -1) : steps;
  let multipath: number[] | null = null;
  let at = -1;
  const path: number[] = [];
  fixed.forEach((step, i) => {
    const choice = /^<(.*)>$/.exec(step);
    if (choice) {
      if (multipath) throw new Error('a key takes one multipath step <a;b> at most');
      const values = choice[1]!.split(';');
      if (values.length < 2 || values.some((v) => !/^\d+$/.test(v)))
        throw new Error('a multipath step is <a;b> of two or more unhardened indexes, as in /<0;1>/*');
      multipath = values.map(index);
      if (new Set(multipath).size !== multipath.length)
        throw new Error('a multipath step names an index twice');
      at = i;
      path.push(0);
      return;
    }
    if (/^\d+['h]$/.test(step))
      throw new Error(
        "hardened derivation (h or ') after a public key needs the private key; watch the account key",
      );
    if (!/^\d+$/.test(step)) throw new Error('a derivation step is an unhardened index, <a;b> or a final *');
    path.push(index(step));
  });
  const chains: number[][] = multipath
    ? (multipath as number[]).map((v) => path.map((p, i) => (i === at ? v : p)))
    : [path];
  return { key, origin, chains, ranged, bare: steps.length === 0 };
}

function index(text: string): number {
  const n = Number(text);
  if (!(n < 2 ** 31)) throw new Error('a derivation index is below 2^31');
  return n;
}
