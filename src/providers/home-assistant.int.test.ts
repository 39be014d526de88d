import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHomeAssistant } from '../../test/fakes/home-assistant.js';
import { importCommand, STATISTICS } from '../power/ha-statistics/statistics.js';
import {
  HaAuthInvalid,
  HaCommandError,
  HaConnection,
  HaUnreachable,
  websocketUrl,
} from './home-assistant.js';

let ha: FakeHomeAssistant;
const never = new AbortController().signal;
const open = (over: Partial<Parameters<typeof HaConnection.open>[0]> = {}) =>
  HaConnection.open({
    url: ha.url,
    token: ha.token,
    timeoutMs: 2_000,
    maxBytes: 1 << 20,
    signal: never,
    ...over,
  });

const consumption = STATISTICS[0]!;
const good = () =>
  importCommand(consumption, [
    { start: new Date('2026-10-25T00:00:00Z'), state: '1.5', sum: '1.5' },
    { start: new Date('2026-10-25T01:00:00Z'), state: '0.5', sum: '2' },
  ]);

beforeAll(async () => {
  ha = await FakeHomeAssistant.start();
  ha.tokens.set('fake-ha-user-token', { admin: false });
});
afterAll(() => ha.close());

describe("Home Assistant's WebSocket API", () => {
  it('is reached at /api/websocket of HA_URL, ws or wss as the URL is http or https', () => {
    expect(websocketUrl('http://homeassistant.local:8123')).toBe(
      'ws://homeassistant.local:8123/api/websocket',
    );
    expect(websocketUrl('https://ha.example.dk/proxy/')).toBe('wss://ha.example.dk/proxy/api/websocket');
  });

  it('authenticates, numbers the commands from 1 and takes their results', async () => {
    const conn = await open();
    expect(conn.haVersion).toBe('2026.11.0');
    await conn.command(good());
    await conn.command(good());
    conn.close();
    expect(ha.commands.slice(-2).map((c) => c.id)).toEqual([1, 2]);
    expect(conn.sent).toBe(3);
    expect(ha.hours('satwatt:grid_consumption')).toEqual([
      { start: '2026-10-25T00:00:00.000Z', state: 1.5, sum: 1.5 },
      { start: '2026-10-25T01:00:00.000Z', state: 0.5, sum: 2 },
    ]);
    expect(ha.errors).toEqual([]);
  });

  it('says auth_invalid for a token Home Assistant does not know, and the socket is closed', async () => {
    const refused = ha.authRefused;
    const e = await open({ token: 'not-a-token' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HaAuthInvalid);
    expect((e as Error).message).toBe(
      'Home Assistant refused the token (auth_invalid: Invalid access token or password)',
    );
    expect((e as Error).message).not.toContain('not-a-token');
    expect(ha.authRefused).toBe(refused + 1);
  });

  it('refuses the import of a user who is not an administrator (require_admin)', async () => {
    const conn = await open({ token: 'fake-ha-user-token' });
    const e = await conn.command(good()).catch((x: unknown) => x);
    conn.close();
    expect(e).toBeInstanceOf(HaCommandError);
    expect(e).toMatchObject({ code: 'unauthorized' });
  });

  it('refuses, as Home Assistant does, every import outside its schema or its rules', async () => {
    const cases: [string, (c: ReturnType<typeof good>) => unknown, string, string][] = [
      [
        'source not the domain',
        (c) => ({ ...c, metadata: { ...c.metadata, source: 'other' } }),
        'home_assistant_error',
        'Invalid source',
      ],
      [
        'an id without a domain',
        (c) => ({
          ...c,
          metadata: { ...c.metadata, statistic_id: 'grid_consumption', source: 'grid_consumption' },
        }),
        'home_assistant_error',
        'Invalid statistic_id',
      ],
      [
        'an upper-case id',
        (c) => ({ ...c, metadata: { ...c.metadata, statistic_id: 'satwatt:Grid' } }),
        'home_assistant_error',
        'Invalid statistic_id',
      ],
      [
        'an entity id from an integration',
        (c) => ({ ...c, metadata: { ...c.metadata, statistic_id: 'sensor.grid' } }),
        'home_assistant_error',
        'Invalid source',
      ],
      [
        'a quarter past',
        (c) => ({ ...c, stats: [{ start: '2026-10-25T00:15:00+00:00', sum: 1 }] }),
        'home_assistant_error',
        'Invalid timestamp: timestamps must be from the top of the hour (minutes and seconds = 0)',
      ],
      [
        'a naive start',
        (c) => ({ ...c, stats: [{ start: '2026-10-25T00:00:00', sum: 1 }] }),
        'home_assistant_error',
        'Naive timestamp: no or invalid timezone info provided',
      ],
      [
        'no mean_type (2026.11)',
        (c) => ({ ...c, metadata: { ...c.metadata, mean_type: undefined } }),
        'invalid_format',
        "required key not provided @ data['metadata']['mean_type']. Got None",
      ],
      [
        'no unit_class (2026.11)',
        (c) => ({ ...c, metadata: { ...c.metadata, unit_class: undefined } }),
        'invalid_format',
        "required key not provided @ data['metadata']['unit_class']. Got None",
      ],
      [
        'a unit not of the class',
        (c) => ({ ...c, metadata: { ...c.metadata, unit_of_measurement: 'DKK' } }),
        'home_assistant_error',
        "Unsupported unit_of_measurement 'DKK' for unit_class 'energy'",
      ],
      [
        'a key HA does not know',
        (c) => ({ ...c, metadata: { ...c.metadata, currency: 'DKK' } }),
        'invalid_format',
        "extra keys not allowed @ data['metadata']['currency']. Got \"DKK\"",
      ],
      [
        'a sum as text',
        (c) => ({ ...c, stats: [{ start: '2026-10-25T00:00:00+00:00', sum: '1.5' }] }),
        'invalid_format',
        "expected float @ data['stats'][0]['sum']. Got \"1.5\"",
      ],
      [
        'has_sum as text',
        (c) => ({ ...c, metadata: { ...c.metadata, has_sum: 'true' } }),
        'invalid_format',
        "expected bool @ data['metadata']['has_sum']. Got \"true\"",
      ],
      [
        'no start',
        (c) => ({ ...c, stats: [{ sum: 1 }] }),
        'invalid_format',
        "required key not provided @ data['stats'][0]['start']. Got None",
      ],
    ];
    const conn = await open();
    for (const [what, change, code, message] of cases) {
      const body = JSON.parse(JSON.stringify(change(good()))) as Record<string, unknown>;
      const e = await conn.command(body).catch((x: unknown) => x);
      expect(e, what).toBeInstanceOf(HaCommandError);
      expect(e, what).toMatchObject({ code, detail: message });
    }
    conn.close();
  });

  it('fails a command or a connection that gets no answer within the timeout, and ends at an abort', async () => {
    ha.silent = true;
    try {
      const t0 = performance.now();
      const e = await open({ timeoutMs: 300 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(HaUnreachable);
      expect(performance.now() - t0).toBeLessThan(2_000);
      const stop = new AbortController();
      const opening = open({ timeoutMs: 60_000, signal: stop.signal }).catch((x: unknown) => x);
      setTimeout(() => stop.abort(), 50);
      expect(await opening).toBeInstanceOf(HaUnreachable);
    } finally {
      ha.silent = false;
    }
    const refused = await HaConnection.open({
      url: 'http://127.0.0.1:9',
      token: 'x',
      timeoutMs: 2_000,
      maxBytes: 1 << 20,
      signal: never,
    }).catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(HaUnreachable);
  });

  it('rejects what waits for an answer when the connection is cut', async () => {
    const conn = await open();
    ha.dropAtImport = ha.imports + 1;
    try {
      expect(await conn.command(good()).catch((x: unknown) => x)).toBeInstanceOf(HaUnreachable);
      expect(await conn.command(good()).catch((x: unknown) => x)).toBeInstanceOf(HaUnreachable);
    } finally {
      ha.dropAtImport = null;
    }
  });
});
