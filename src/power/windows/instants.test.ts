import { describe, expect, it } from 'vitest';
import { Refusal } from '../../shared/refusal.js';
import { parseInstant } from './instants.js';

const at = (text: string) => parseInstant(text, 'querystring.after').toISOString();
const refusal = (text: string) => {
  try {
    parseInstant(text, 'querystring.after');
  } catch (e) {
    expect(e).toBeInstanceOf(Refusal);
    expect((e as Refusal).kind).toBe('invalid');
    return (e as Refusal).detail;
  }
  throw new Error(`${text} was taken`);
};

describe('an instant of a query', () => {
  it('takes Danish wall time without an offset, winter and summer', () => {
    expect(at('2026-01-15T17:00')).toBe('2026-01-15T16:00:00.000Z');
    expect(at('2026-07-03T17:00:00')).toBe('2026-07-03T15:00:00.000Z');
    expect(at('2026-07-03T17:00:30.250')).toBe('2026-07-03T15:00:30.250Z');
  });

  it('takes Z and offsets as the instant they name', () => {
    expect(at('2026-01-15T16:00:00Z')).toBe('2026-01-15T16:00:00.000Z');
    expect(at('2026-01-15T17:00:00+01:00')).toBe('2026-01-15T16:00:00.000Z');
    expect(at('2026-01-15T11:00:00-05:00')).toBe('2026-01-15T16:00:00.000Z');
    expect(at('2026-01-16T06:00:00+14:00')).toBe('2026-01-15T16:00:00.000Z');
    // a `+` sent unencoded in a query string arrives as a space
    expect(at('2026-01-15T17:00:00 01:00')).toBe('2026-01-15T16:00:00.000Z');
  });

  it('takes the earlier instant of a wall time the autumn change repeats, and either with an offset', () => {
    expect(at('2026-10-25T02:30')).toBe('2026-10-25T00:30:00.000Z'); // +02:00
    expect(at('2026-10-25T02:30+02:00')).toBe('2026-10-25T00:30:00.000Z');
    expect(at('2026-10-25T02:30+01:00')).toBe('2026-10-25T01:30:00.000Z');
    expect(at('2026-10-25T01:59')).toBe('2026-10-24T23:59:00.000Z');
    expect(at('2026-10-25T03:00')).toBe('2026-10-25T02:00:00.000Z');
  });

  it('refuses a wall time the spring change skips, naming the field', () => {
    expect(refusal('2026-03-29T02:30')).toMatch(
      /^querystring\.after: "2026-03-29T02:30" does not exist in Danish time/,
    );
    expect(refusal('2026-03-29T02:00:00')).toMatch(/does not exist/);
    expect(at('2026-03-29T01:59')).toBe('2026-03-29T00:59:00.000Z');
    expect(at('2026-03-29T03:00')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('2026-03-29T02:30+01:00')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('refuses hostile text, impossible dates, bad offsets and years outside the prices, naming the field', () => {
    for (const text of [
      '',
      'now',
      '2026-01-15',
      '2026-01-15 17:00',
      '2026-01-15T17',
      '20260115T170000',
      '2026-1-15T17:00',
      '2026-01-15T17:00:00.1234567890',
      '2026-01-15T17:00Z+01:00',
      '2026-01-15T17:00:00+0100',
      '2026-W03-4T17:00',
      'Infinity',
      'NaN',
      '１２３４-01-15T17:00',
    ])
      expect(refusal(text), text).toMatch(/^querystring\.after: .* is not an ISO 8601 date-time/);
    for (const text of [
      '2026-02-30T12:00',
      '2026-13-01T12:00',
      '2026-01-15T24:00',
      '2026-01-15T23:60',
      '2026-01-15T23:59:60',
    ])
      expect(refusal(text), text).toMatch(/is not a real date and time of day/);
    for (const text of [
      '2026-01-15T17:00+15:00',
      '2026-01-15T17:00-14:30',
      '2026-01-15T17:00+01:60',
      '2026-01-15T17:00+99:99',
    ])
      expect(refusal(text), text).toMatch(/outside −14:00\.\.\+14:00/);
    for (const text of ['0000-01-01T00:00', '9999-12-31T23:59', '1999-06-30T21:59Z', '2100-01-01T00:00'])
      expect(refusal(text), text).toMatch(/is not from 1999-07-01 to 2099-12-31 in Danish time/);
    expect(at('1999-07-01T00:00')).toBe('1999-06-30T22:00:00.000Z');
    // a long value is shown cut at 40 characters
    expect(refusal(`2026-01-15T17:00${'0'.repeat(60)}`)).toContain(`"2026-01-15T17:00${'0'.repeat(24)}…"`);
  });
});
