import { describe, expect, it } from 'vitest';
import { isLoopbackName } from './open-mode.js';

describe('a safe open mode: loopback names', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'app.localhost',
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (name) => expect(isLoopbackName(name)).toBe(true));
  it.each([
    '',
    'example.com',
    'localhost.example',
    '127.0.0.1.nip.io',
    '128.0.0.1',
    '10.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    '0.0.0.0',
    '::',
  ])('%s is not', (name) => expect(isLoopbackName(name)).toBe(false));
});
