import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, utf8Fault } from './utf8.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const replacing = new TextDecoder('utf-8', { ignoreBOM: true });

describe('firstInvalidUtf8', () => {
  it('finds the first byte that begins no well-formed sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('aé€😀'))).toBe(-1);
    expect(firstInvalidUtf8(bytes(0x61, 0xff, 0xfe, 0x62))).toBe(1);
    expect(firstInvalidUtf8(bytes(0xc0, 0xaf))).toBe(0); // an overlong "/"
    expect(firstInvalidUtf8(bytes(0x61, 0xed, 0xa0, 0x80))).toBe(1); // a surrogate, U+D800
    expect(firstInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8(bytes(0x61, 0x62, 0xe2, 0x82))).toBe(2); // cut short at the end
    expect(firstInvalidUtf8(bytes(0x80))).toBe(0); // a continuation alone
  });

  it("agrees with the WHATWG decoder: valid exactly when it is, and its first U+FFFD at the offset's sequence", () => {
    const chunks = fc.oneof(
      fc.uint8Array({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }).map((s) => new Uint8Array(Buffer.from(s))),
    );
    fc.assert(
      fc.property(fc.array(chunks, { maxLength: 8 }), (parts) => {
        const b = Uint8Array.from(parts.flatMap((p) => [...p]));
        const at = firstInvalidUtf8(b);
        expect(at === -1).toBe(isUtf8(b));
        if (at >= 0) {
          expect(isUtf8(b.subarray(0, at))).toBe(true);
          expect(replacing.decode(b).startsWith(`${replacing.decode(b.subarray(0, at))}\uFFFD`)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('utf8Fault', () => {
  it('names the byte, its offset and, for a file, its line', () => {
    expect(utf8Fault(Buffer.from('a,b\nc'))).toBeNull();
    expect(utf8Fault(bytes(0x61, 0x0a, 0x62, 0xff), { lines: true })).toBe(
      'must be UTF-8: byte 0xFF at offset 3 (line 2) begins no UTF-8 sequence',
    );
  });
});
