import { describe, expect, it } from 'vitest';
import { queryRefusal } from './utf8.js';

describe('queryRefusal', () => {
  it('takes a query string percent-decoded, names the parameter, and leaves a literal "%" or "+" alone', () => {
    expect(queryRefusal('date=2026-07-03&name=%C3%A9t%C3%A9+x&q=100%&r=%zz')).toBeNull();
    expect(queryRefusal('type=%FF')).toBe(
      'querystring.type: must be UTF-8 once percent-decoded: byte 0xFF at offset 0 begins no UTF-8 sequence',
    );
    expect(queryRefusal('a=1&na%C3%A9me=x%C3')).toMatch(/^querystring\.naéme: must be UTF-8 .* offset 1 /);
    expect(queryRefusal('%FE=1')).toMatch(/^querystring: a parameter's name must be UTF-8/);
  });
});
