import { describe, expect, it } from 'vitest';
import { LOCK_KEYS } from './lock-keys.js';

describe('advisory lock keys', () => {
  it('gives every feature a key of its own, within a bigint lock key', () => {
    const keys = Object.values(LOCK_KEYS);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(Number.isSafeInteger(k) && k > 0).toBe(true);
  });
});
