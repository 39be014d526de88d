import { isUtf8 } from 'node:buffer';

/*
 * Bytes that are not UTF-8 are refused wherever text comes in: a decoder that replaces them by
 * U+FFFD would make "a\xFF\xFEb" and "a\xFE\xFFb" one name, the very collision the text rules
 * (text.ts) are there to prevent.
 */

/**
 * The offset of the first byte that does not begin or continue a well-formed UTF-8 sequence
 * (Unicode's table 3-7: no overlong form, no surrogate, nothing past U+10FFFF), or -1.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const [length, low, high] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : b === 0xed
            ? [3, 0x80, 0x9f]
            : b >= 0xe1 && b <= 0xef
              ? [3, 0x80, 0xbf]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b === 0xf4
                  ? [4, 0x80, 0x8f]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

const hex = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');

/**
 * Why these bytes are refused as text: "must be UTF-8: byte 0xFF at offset 3 begins no UTF-8
 * sequence" (with the line, for a file); null when they are UTF-8.
 */
export function utf8Fault(
  bytes: Uint8Array,
  opts: { lines?: boolean; decoded?: string } = {},
): string | null {
  if (isUtf8(bytes)) return null;
  const at = firstInvalidUtf8(bytes);
  let where = `offset ${at}`;
  if (opts.lines) {
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
    where += ` (line ${line})`;
  }
  const decoded = opts.decoded ? ` ${opts.decoded}` : '';
  return `must be UTF-8${decoded}: byte 0x${hex(bytes[at]!)} at ${where} begins no UTF-8 sequence`;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of bytes known to be UTF-8 (utf8Fault gave null); a byte-order mark is kept. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
