import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PacketSizeGuard, PacketTooLarge } from './packet-guard.js';

/** An MQTT packet: a type byte, the remaining length (7 bits a byte), then that many bytes. */
function packet(type: number, bodyBytes: number): Uint8Array {
  const length: number[] = [];
  let n = bodyBytes;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    length.push(byte);
  } while (n > 0);
  const out = new Uint8Array(1 + length.length + bodyBytes);
  out[0] = type;
  out.set(length, 1);
  return out;
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** Feeds `bytes` cut at the given points. */
function feedCut(guard: PacketSizeGuard, bytes: Uint8Array, cuts: number[]) {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const p of [...points, bytes.length]) {
    guard.feed(bytes.subarray(from, p));
    from = p;
  }
}

describe('the incoming packet size guard', () => {
  it('passes packets up to the limit, in any chunking, and stops at the first one over it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }),
        fc.integer({ min: 301, max: 70_000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (sizes, big, cuts) => {
          const max = 303; // a 300-byte body with its 3 header bytes
          const fits = concat(sizes.map((n) => packet(0x30, n)));
          feedCut(new PacketSizeGuard(max), fits, cuts);
          // the oversized packet's header alone is enough: its body never has to arrive
          const header = packet(0x30, big).subarray(0, big < 16_384 ? 3 : 4);
          const guard = new PacketSizeGuard(max);
          let thrown: unknown = null;
          try {
            feedCut(guard, concat([fits, header]), cuts);
          } catch (e) {
            thrown = e;
          }
          expect(thrown).toBeInstanceOf(PacketTooLarge);
          expect((thrown as PacketTooLarge).bytes).toBe(header.length + big);
        },
      ),
    );
  });

  it('reads the four-byte remaining length of a 100 MB packet', () => {
    const header = Uint8Array.from([0x31, 0x80, 0x80, 0x80, 0x30]); // 0x30 << 21 = 100,663,296
    expect(() => new PacketSizeGuard(64 * 1024).feed(header)).toThrow(
      'the broker sent a packet of 100663301 bytes; at most 65536 are taken (the connection is closed)',
    );
  });

  it('takes packets without a body (PINGRESP) between others', () => {
    const guard = new PacketSizeGuard(10);
    guard.feed(concat([packet(0xd0, 0), packet(0x20, 2), packet(0xd0, 0), packet(0x90, 3)]));
    expect(() => guard.feed(packet(0x30, 9).subarray(0, 2))).toThrow(PacketTooLarge);
  });
});
