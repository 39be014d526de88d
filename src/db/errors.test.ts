import { describe, expect, it } from 'vitest';
import { DatabaseUnavailable, isConnectionLost } from './errors.js';

describe('isConnectionLost', () => {
  it('knows a terminated session, a closed socket and a refused connection, also as a cause', () => {
    expect(isConnectionLost(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(
      true,
    );
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isConnectionLost(new DatabaseUnavailable('the embedded database stopped answering in step'))).toBe(
      true,
    );
    expect(
      isConnectionLost(
        new Error('wrapped', { cause: Object.assign(new Error('r'), { code: 'ECONNREFUSED' }) }),
      ),
    ).toBe(true);
  });

  it('leaves a wrong statement, a protocol violation and a broken constraint alone', () => {
    expect(isConnectionLost(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLost(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))).toBe(
      false,
    );
    expect(isConnectionLost(new Error('boom'))).toBe(false);
    // a bind message the server refused: the same statement sent again is refused again
    expect(
      isConnectionLost(
        Object.assign(
          new Error('bind message supplies 2 parameters, but prepared statement "" requires 65538'),
          {
            code: '08P01',
          },
        ),
      ),
    ).toBe(false);
    expect(isConnectionLost(null)).toBe(false);
  });
});
