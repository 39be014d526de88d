import { hex } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { Address, NETWORK } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../../shared/refusal.js';
import { Addresses } from './derive.js';
import { descriptorChecksum, splitChecksum } from './descriptor.js';
import { parseWatch, storedWatch, type Network } from './keys.js';

/**
 * The published vectors of the mnemonic "abandon abandon … about": SLIP-132's test vectors
 * (BIP44's xpub and BIP49's ypub with their first receive address, which BIP44 itself does not
 * publish), BIP49's own (on testnet), BIP84's and BIP86's, each with the key's root.
 */
const ROOT_XPRV =
  'xprv9s21ZrQH143K3GJpoapnV8SFfukcVBSfeCficPSGfubmSFDxo1kuHnLisriDvSnRRuL2Qrg5ggqHKNVpxR86QEC8w35uxmGoggxtQTPvfUu';
const BIP44 = {
  xprv: 'xprv9xpXFhFpqdQK3TmytPBqXtGSwS3DLjojFhTGht8gwAAii8py5X6pxeBnQ6ehJiyJ6nDjWGJfZ95WxByFXVkDxHXrqu53WCRGypk2ttuqncb',
  xpub: 'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj',
  receive0: '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
};
const BIP49 = {
  yprv: 'yprvAHwhK6RbpuS3dgCYHM5jc2ZvEKd7Bi61u9FVhYMpgMSuZS613T1xxQeKTffhrHY79hZ5PsskBjcc6C2V7DrnsMsNaGDaWev3GLRQRgV7hxF',
  ypub: 'ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP',
  receive0: '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
  upub: 'upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY',
  testReceive0: '2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2',
  testReceive0Key: '03a1af804ac108a8a51782198c2d034b28bf90c8803f5a53f76276fa69a4eae77f',
};
const BIP84 = {
  zprv: 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE',
  zpub: 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  receive0: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  receive1: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
  change0: 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el',
};
const BIP86 = {
  xpub: 'xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ',
  receive0: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
  receive1: 'bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh',
  change0: 'bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7',
};

const addresses = (watch: string | string[], network: Network = 'mainnet') =>
  new Addresses(parseWatch(watch, network));

/** What refusing `watch` says; fails the test when it is accepted or refused otherwise. */
function refusal(watch: string | string[], network: Network = 'mainnet'): string {
  try {
    parseWatch(watch, network);
  } catch (e) {
    expect(e).toBeInstanceOf(Refusal);
    expect((e as Refusal).kind).toBe('invalid');
    const detail = (e as Refusal).detail;
    expect(detail.startsWith('body.watch')).toBe(true);
    // the key is as private as the token: a refusal never repeats it
    for (const part of [watch].flat()) if (part.length > 20) expect(detail).not.toContain(part.slice(4, 40));
    return detail;
  }
  throw new Error('accepted');
}

/** The address of the key derived privately from an account's extended private key: an independent route. */
function privatelyDerived(xprv: string, versions: { public: number; private: number }, path: string) {
  return HDKey.fromExtendedKey(xprv, versions).derive(path).publicKey!;
}

describe('account keys of "abandon … about"', () => {
  it('are the root key (BIP86) derived at m/44h/0h/0h, m/49h/0h/0h, m/84h/0h/0h and m/86h/0h/0h', () => {
    const root = HDKey.fromExtendedKey(ROOT_XPRV);
    expect(root.derive("m/44'/0'/0'").publicExtendedKey).toBe(BIP44.xpub);
    const y = HDKey.fromExtendedKey(ROOT_XPRV, { public: 0x049d7cb2, private: 0x0488ade4 });
    expect(y.derive("m/49'/0'/0'").publicExtendedKey).toBe(BIP49.ypub);
    const z = HDKey.fromExtendedKey(ROOT_XPRV, { public: 0x04b24746, private: 0x0488ade4 });
    expect(z.derive("m/84'/0'/0'").publicExtendedKey).toBe(BIP84.zpub);
    expect(root.derive("m/86'/0'/0'").publicExtendedKey).toBe(BIP86.xpub);
  });
});

describe('derivation from an account key', () => {
  it('BIP44: an xpub gives P2PKH addresses; the change chain is the private derivation’s', () => {
    const a = addresses(BIP44.xpub);
    expect(a.address(0, 0)).toBe(BIP44.receive0);
    const change = privatelyDerived(BIP44.xprv, { public: 0x0488b21e, private: 0x0488ade4 }, 'm/1/0');
    expect(a.address(1, 0)).toBe(Address(NETWORK).encode({ type: 'pkh', hash: hash160(change) }));
    expect(parseWatch(BIP44.xpub, 'mainnet').kind).toBe('xpub');
  });

  it('BIP49: a ypub gives P2SH-P2WPKH addresses, on mainnet and (upub) on testnet', () => {
    const a = addresses(BIP49.ypub);
    expect(a.address(0, 0)).toBe(BIP49.receive0);
    const change = privatelyDerived(BIP49.yprv, { public: 0x049d7cb2, private: 0x049d7878 }, 'm/1/0');
    expect(a.address(1, 0)).toBe(addressOfKey(change, 'sh(wpkh(', '))'));
    const t = parseWatch(BIP49.upub, 'testnet');
    expect(t.kind).toBe('upub');
    expect(new Addresses(t).address(0, 0)).toBe(BIP49.testReceive0);
    if (t.kind === 'addresses' || !t.node) throw new Error('no key');
    expect(hex.encode(t.node.deriveChild(0).deriveChild(0).publicKey!)).toBe(BIP49.testReceive0Key);
  });

  it('BIP84: a zpub gives P2WPKH addresses: the first two receive and the first change address', () => {
    const a = addresses(BIP84.zpub);
    expect([a.address(0, 0), a.address(0, 1), a.address(1, 0)]).toEqual([
      BIP84.receive0,
      BIP84.receive1,
      BIP84.change0,
    ]);
    const change = privatelyDerived(BIP84.zprv, { public: 0x04b24746, private: 0x04b2430c }, 'm/1/0');
    expect(addressOfKey(change, 'wpkh(', ')')).toBe(BIP84.change0);
  });

  it('BIP86: tr() of the account xpub, with /<0;1>/* or without, gives its P2TR addresses', () => {
    for (const d of [
      `tr(${BIP86.xpub}/<0;1>/*)`,
      `tr(${BIP86.xpub})`,
      `tr([73c5da0a/86h/0h/0h]${BIP86.xpub}/<0;1>/*)`,
    ]) {
      const a = addresses(d);
      expect([a.address(0, 0), a.address(0, 1), a.address(1, 0)]).toEqual([
        BIP86.receive0,
        BIP86.receive1,
        BIP86.change0,
      ]);
    }
    const receiveOnly = addresses(`tr(${BIP86.xpub}/0/*)`);
    expect(receiveOnly.chains).toBe(1);
    expect(receiveOnly.address(0, 1)).toBe(BIP86.receive1);
  });

  it('descriptors of each script type give the same addresses as the SLIP-132 key', () => {
    expect(addresses(`pkh(${BIP44.xpub}/<0;1>/*)`).address(0, 0)).toBe(BIP44.receive0);
    expect(addresses(`sh(wpkh(${xpubOf(BIP49.ypub)}/<0;1>/*))`).address(0, 0)).toBe(BIP49.receive0);
    expect(addresses(`wpkh(${xpubOf(BIP84.zpub)}/0/*)`).address(0, 1)).toBe(BIP84.receive1);
  });
});

describe('descriptors (BIP380, BIP382, BIP389)', () => {
  it('checksums: BIP380’s vector and Bitcoin Core’s deriveaddresses example', () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
    expect(splitChecksum('raw(deadbeef)#89f8spxm')).toBe('raw(deadbeef)');
    expect(
      descriptorChecksum(
        'wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/*)',
      ),
    ).toBe('cjjspncu');
  });

  it('refuses BIP380’s invalid checksums: missing, too long, too short, an error in payload or checksum, a foreign character', () => {
    for (const bad of [
      'raw(deadbeef)#',
      'raw(deadbeef)#89f8spxmx',
      'raw(deadbeef)#89f8spx',
      'raw(deedbeef)#89f8spxm',
      'raw(deedbeef)##9f8spxm',
      'raw(Ü)#00000000',
    ])
      expect(() => splitChecksum(bad), bad).toThrow();
  });

  it('a descriptor with its checksum is watched; a character changed is refused', () => {
    const d =
      'wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/*)#cjjspncu';
    const w = parseWatch(d, 'mainnet');
    expect(w.kind).toBe('descriptor');
    expect(w.text).toBe(d);
    expect(refusal(d.replace('/0/*', '/1/*'))).toMatch(/checksum does not match/);
  });

  it('BIP382: wpkh([ffffffff/13h]xpub…/1/2/*) gives its published scripts', () => {
    const a = addresses(
      "wpkh([ffffffff/13']xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH/1/2/*)",
    );
    expect([0, 1, 2].map((i) => script(a.address(0, i)))).toEqual([
      '0014326b2249e3a25d5dc60935f044ee835d090ba859',
      '0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7',
      '00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27',
    ]);
  });

  it('BIP389: a multipath step <1;3> makes two chains', () => {
    const a = addresses(
      'wpkh([ffffffff/13h]xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH/<1;3>/2/*)',
    );
    expect(a.chains).toBe(2);
    expect(script(a.address(0, 0))).toBe('0014326b2249e3a25d5dc60935f044ee835d090ba859');
    expect(a.address(1, 0)).not.toBe(a.address(0, 0));
  });

  it('a descriptor of one plain key is one address (BIP382’s wpkh of a hex key)', () => {
    const a = addresses('wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)');
    expect(a.ranged).toBe(false);
    expect(a.fixed().map((f) => script(f.address))).toEqual(['00149a1c78a507689f6f54b847ad1cef1e614ee23f1e']);
  });
});

describe('address lists', () => {
  it('takes an array or a text of addresses, bech32 in lower case, each once', () => {
    const w = parseWatch([BIP84.receive0.toUpperCase(), BIP44.receive0], 'mainnet');
    expect(w.kind).toBe('addresses');
    expect(new Addresses(w).fixed().map((f) => f.address)).toEqual([BIP84.receive0, BIP44.receive0]);
    expect(parseWatch(`${BIP84.receive0}, ${BIP44.receive0}\n`, 'mainnet').text).toBe(w.text);
    expect(storedWatch('addresses', w.text, 'mainnet')).toEqual(w);
  });

  it('refuses a duplicate, a wrong checksum and an address of another network', () => {
    expect(refusal([BIP84.receive0, BIP84.receive0])).toMatch(/entry 2 is listed twice/);
    expect(refusal([BIP84.receive0.slice(0, -1) + 'q'])).toMatch(/not a Bitcoin address/);
    expect(refusal(BIP49.testReceive0)).toMatch(/address of a test network, not of the mainnet setting/);
    expect(refusal(BIP84.receive0, 'testnet')).toMatch(/address of mainnet, not of the testnet setting/);
  });
});

describe('what is refused, saying why', () => {
  it('private keys: xprv and zprv, in a descriptor too, and WIF', () => {
    expect(refusal(BIP44.xprv)).toMatch(/private key \(xprv\).*public key/);
    expect(refusal(BIP84.zprv)).toMatch(/private key \(zprv\)/);
    expect(refusal(`wpkh(${BIP44.xprv}/0/*)`)).toMatch(/private key \(xprv\)/);
    expect(refusal('wpkh(L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1)')).toMatch(
      /private key \(WIF\)/,
    );
  });

  it('a mainnet key on a test network and a test key on mainnet', () => {
    expect(refusal(BIP84.zpub, 'testnet')).toMatch(/mainnet key \(zpub\) on the testnet setting/);
    expect(refusal(BIP49.upub, 'mainnet')).toMatch(/test-network key \(upub\) on the mainnet setting/);
    expect(parseWatch(BIP49.upub, 'signet').network).toBe('signet');
  });

  it('a wrong base58 checksum, hardened steps after a public key, several keys, script trees', () => {
    const wrong = BIP84.zpub.slice(0, -1) + (BIP84.zpub.endsWith('s') ? 't' : 's');
    expect(refusal(wrong)).toMatch(/base58 checksum does not match/);
    expect(refusal(`wpkh(${BIP44.xpub}/0h/*)`)).toMatch(/hardened derivation/);
    expect(refusal(`wpkh(${BIP44.xpub}/0/*h)`)).toMatch(/hardened derivation/);
    expect(refusal(`wsh(multi(1,${BIP44.xpub}/0/*))`)).toMatch(/descriptors of one key/);
    expect(refusal(`tr(${BIP86.xpub},pk(${BIP44.xpub}))`)).toMatch(/script tree/);
    expect(refusal(`wpkh(${BIP44.xpub}/<0;1>/<2;3>/*)`)).toMatch(/one multipath step/);
    expect(refusal(`wpkh(${BIP44.xpub}/<0;0>/*)`)).toMatch(/names an index twice/);
    expect(refusal('')).toMatch(/empty/);
  });
});

function addressOfKey(publicKey: Uint8Array, prefix: string, suffix: string): string {
  return new Addresses(parseWatch(`${prefix}${hex.encode(publicKey)}${suffix}`, 'mainnet')).first();
}

function script(address: string): string {
  const d = Address(NETWORK).decode(address) as { type: string; hash: Uint8Array };
  return `0014${hex.encode(d.hash)}`;
}

/** The same key serialized as an xpub: descriptors take xpubs whatever the script. */
function xpubOf(text: string): string {
  const version = text.startsWith('ypub') ? 0x049d7cb2 : 0x04b24746;
  const k = HDKey.fromExtendedKey(text, { public: version, private: 0 });
  return new HDKey({
    publicKey: k.publicKey!,
    chainCode: k.chainCode!,
    depth: k.depth,
    index: k.index,
    parentFingerprint: k.parentFingerprint,
  }).publicExtendedKey;
}
