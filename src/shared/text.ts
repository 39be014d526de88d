/**
 * Text a person typed, checked before it is stored. PostgreSQL cannot store NUL in text (the
 * insert fails), and a lone UTF-16 surrogate is not a character: the driver turns it into U+FFFD,
 * so two different names would be stored as the same one. A name must also be told apart by eye,
 * so control characters (Cc) and invisible format characters (Cf: zero-width spaces and joiners,
 * bidirectional overrides, soft hyphens) are refused in names, and names are kept in Unicode NFC,
 * so that "é" typed as one character or as "e" and a combining accent is one name.
 */
export type TextKind = 'text' | 'name';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE = new RegExp(`\u0000|${LONE_SURROGATE.source}`, 'g');
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` is refused as text of this kind, naming the character; null when it may be stored. */
export function textFault(value: string, kind: TextKind = 'text'): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL (U+0000)';
  const lone = LONE_SURROGATE.exec(value);
  if (lone)
    return `must not contain an unpaired UTF-16 surrogate (${codePoint(lone[0])}): it is no character`;
  if (kind === 'name') {
    const hidden = INVISIBLE.exec(value);
    if (hidden)
      return `must not contain the control or invisible character ${codePoint(hidden[0])}: names must be told apart by eye`;
  }
  return null;
}

/** The form a name is stored and compared in: Unicode NFC. */
export function normalName(value: string): string {
  return value.normalize('NFC');
}

/**
 * Text from a provider that is shown but identifies nothing (a description, a city, an owner's
 * name): NUL and unpaired surrogates become U+FFFD, as the database would store a surrogate anyway,
 * so what is stored is what was checked and a NUL cannot fail the write. Text that identifies
 * something (a charge's name) is refused instead (textFault): replaced, two names could merge.
 */
export function storableText(value: string): string {
  return value.replace(UNSTORABLE, '\uFFFD');
}
