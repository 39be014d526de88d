import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDigest } from '../../test/fuzz/driver.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';

/**
 * Bytes that are not UTF-8 are a 400 naming where, wherever a request carries text, and nothing
 * is written: before, a body's were decoded to U+FFFD and stored (a wallet named a\xFF\xFEb was
 * 201 as "a\uFFFD\uFFFDb", and one sent with other invalid bytes was then the same name).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
const send = (method: 'POST' | 'GET', url: string, type: string | null, payload?: Buffer, headers = {}) =>
  t.app.inject({ method, url, headers: { ...(type ? { 'content-type': type } : {}), ...headers }, payload });

async function expectRefused(res: Awaited<ReturnType<typeof send>>, detail: RegExp) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json().detail).toMatch(detail);
}

describe('bytes that are not UTF-8', () => {
  it('in a JSON body: 400 naming the byte and its offset, and no wallet is made', async () => {
    const before = await databaseDigest(t.db.database);
    for (const [sequence, offset] of [
      [[0xff, 0xfe], 10], // no UTF-8 byte at all
      [[0xc0, 0xaf], 10], // an overlong "/"
      [[0xed, 0xa0, 0x80], 10], // the surrogate U+D800
      [[0xe2, 0x82], 10], // cut short
    ] as const) {
      const body = bytes('{"name":"a', [...sequence], 'b","wallet_type":"wallet"}');
      await expectRefused(
        await send('POST', '/api/wallets', 'application/json', body),
        new RegExp(`^body: must be UTF-8: byte 0x[0-9A-F]{2} at offset ${offset} begins no UTF-8 sequence$`),
      );
    }
    expect(await databaseDigest(t.db.database)).toEqual(before);
  });

  it('in JSON that is UTF-8, a name with any character (U+FFFD typed as such too) is stored as sent', async () => {
    const res = await send(
      'POST',
      '/api/wallets',
      'application/json; charset=utf-8',
      bytes('{"name":"é\uFFFD😀","wallet_type":"wallet"}'),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().name).toBe('é\uFFFD😀');
    const empty = await send('POST', '/api/wallets', 'application/json', Buffer.alloc(0));
    expect(empty.statusCode).toBe(400);
    const broken = await send('POST', '/api/wallets', 'application/json', bytes('{"name":'));
    expect(broken.statusCode).toBe(400);
  });

  it('in a CSV import (text/csv and text/plain): 400 naming the line, and nothing is imported', async () => {
    const before = await databaseDigest(t.db.database);
    const file = bytes(
      'date,type,sats,fee_sats,amount,currency,reference\n2025-01-01,bank_to_exchange,,,1.00,EUR,r1\n',
      '2025-01-02,bank_to_exchange,,,1.00,EUR,r',
      [0xff],
      '2\n',
    );
    for (const type of ['text/csv', 'text/plain'])
      await expectRefused(
        await send('POST', '/api/imports?source=csv&exchange=1', type, file),
        /^body: must be UTF-8: byte 0xFF at offset 132 \(line 3\) begins no UTF-8 sequence$/,
      );
    expect(await databaseDigest(t.db.database)).toEqual(before);
  });

  it('in a solar upload: 400 before the import starts', async () => {
    const file = bytes('timestamp,energy_kwh\n2026-07-01 10:00,1', [0xa0], '5\n');
    await expectRefused(
      await send('POST', '/api/jobs/import-solar?name=x.csv', 'text/csv', file),
      /^body: must be UTF-8: byte 0xA0 at offset 39 \(line 2\)/,
    );
  });

  it('percent-encoded in a query string: 400 naming the parameter; valid escapes pass on', async () => {
    await expectRefused(
      await send('GET', '/api/events?type=%FF', null),
      /^querystring\.type: must be UTF-8 once percent-decoded: byte 0xFF at offset 0/,
    );
    await expectRefused(
      await send('GET', '/api/events?limit=5&%C3=1', null),
      /^querystring: a parameter's name/,
    );
    const valid = await send('GET', '/api/events?type=caf%C3%A9', null);
    expect(valid.statusCode).toBe(400);
    expect(valid.json().detail).toMatch(/^querystring\.type: must be one of/);
    expect((await send('GET', '/api/events?limit=5', null)).statusCode).toBe(200);
  });

  it('percent-encoded in a path: 400', async () => {
    const res = await send('GET', '/api/wallets/%FF', null);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail).toMatch(/^path: /);
  });

  it('in an Idempotency-Key: 400 naming the header, and nothing is written', async () => {
    const before = await databaseDigest(t.db.database);
    // Node reads each byte of a header as one latin1 character: "\xFF" is the byte 0xFF
    const res = await send('POST', '/api/events', 'application/json', bytes('{}'), {
      'idempotency-key': 'key-\xff',
    });
    await expectRefused(res, /^headers\.idempotency-key: must be UTF-8: byte 0xFF at offset 4/);
    expect(await databaseDigest(t.db.database)).toEqual(before);
  });
});
