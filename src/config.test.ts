import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, loadConfig, parseJdbcUrl } from './config.js';

const load = (env: Record<string, string>) => loadConfig(env, '/nonexistent-dir');

function problemsOf(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('config', () => {
  it('has working defaults: both services, port 3030, embedded database in ./data', () => {
    const c = load({});
    expect(c.port).toBe(3030);
    expect(c.host).toBe('127.0.0.1');
    expect(c.services).toEqual(['btc', 'power']);
    expect(c.database).toBeNull();
    expect(c.dataDir).toBe('/nonexistent-dir/data');
    expect(c.feeds).toEqual({
      meteringSync: true,
      btcPrice: true,
      ohlc: true,
      quote: true,
      rates: true,
      dayAhead: true,
      co2: true,
    });
    expect(c.quoteTotalEur).toBe('55');
    expect(Object.isFrozen(c) && Object.isFrozen(c.urls)).toBe(true);
  });

  it('reports every bad variable on its own line, naming it', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      SPOT_FEED_ENABLED: 'maybe',
      PRICE_FEED_URL: 'not a url',
      SERVICES: 'btc,gas',
    });
    expect(problems).toHaveLength(4);
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'PORT',
      'PRICE_FEED_URL',
      'SERVICES',
      'SPOT_FEED_ENABLED',
    ]);
  });

  it('writes logs for people on a terminal and JSON elsewhere, unless LOG_FORMAT says which', () => {
    const on = (tty: boolean, env: Record<string, string> = {}) =>
      loadConfig(env, '/nonexistent-dir', tty).logFormat;
    expect([on(true), on(false)]).toEqual(['pretty', 'json']);
    expect([on(true, { LOG_FORMAT: 'json' }), on(false, { LOG_FORMAT: 'pretty' })]).toEqual([
      'json',
      'pretty',
    ]);
    expect(problemsOf({ LOG_FORMAT: 'text' })).toEqual(['LOG_FORMAT: expected pretty or json, got "text"']);
  });

  it('refuses a non-loopback HOST without API_TOKEN, and a short token', () => {
    expect(problemsOf({ HOST: '0.0.0.0' })).toEqual([
      expect.stringMatching(/^API_TOKEN: required when HOST/),
    ]);
    expect(problemsOf({ HOST: '0.0.0.0', API_TOKEN: 'short' })).toEqual([
      expect.stringMatching(/^API_TOKEN: must be/),
    ]);
    expect(load({ HOST: '0.0.0.0', API_TOKEN: 'a-long-enough-token' }).apiToken).toBe('a-long-enough-token');
    expect(load({ HOST: 'localhost' }).apiToken).toBeNull();
  });

  it('parses DATABASE_URL and the JDBC form into the same connection', () => {
    const a = load({ DATABASE_URL: 'postgres://root:s3cret@127.0.0.1:5432/test' }).database;
    const b = load({ JDBC_URL: 'jdbc:postgresql://127.0.0.1:5432/test?user=root&password=s3cret' }).database;
    expect(a).toEqual({ host: '127.0.0.1', port: 5432, database: 'test', user: 'root', password: 's3cret' });
    expect(b).toEqual(a);
    expect(parseJdbcUrl('jdbc:postgresql://db.local/power')).toEqual({
      host: 'db.local',
      port: 5432,
      database: 'power',
    });
  });

  it('prefers DATABASE_URL over JDBC_URL and rejects a malformed one without echoing the password', () => {
    expect(
      load({ DATABASE_URL: 'postgres://h/a', JDBC_URL: 'jdbc:postgresql://h/b' }).database?.database,
    ).toBe('a');
    const [p] = problemsOf({ JDBC_URL: 'postgresql://root:pw@h/db' });
    expect(p).toMatch(/^JDBC_URL: expected jdbc:postgresql:/);
    expect(problemsOf({ DATABASE_URL: 'mysql://u:topsecret@h/db' }).join()).not.toContain('topsecret');
  });

  it('trusts no proxy by default; TRUST_PROXY takes true, a hop count, or addresses and ranges', () => {
    expect(load({}).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(load({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8 ,::1,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'proxy.example' })).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33' })).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
  });

  it('limits wrong-token attempts to AUTH_FAILURE_LIMIT a minute, 10 by default', () => {
    expect(load({}).limits.authFailuresPerMinute).toBe(10);
    expect(load({ AUTH_FAILURE_LIMIT: '3' }).limits.authFailuresPerMinute).toBe(3);
    expect(problemsOf({ AUTH_FAILURE_LIMIT: '0' })).toEqual([expect.stringMatching(/^AUTH_FAILURE_LIMIT: /)]);
  });

  it('allows 1000 streams in all and 20 per address by default', () => {
    expect(load({}).streams).toEqual({ maxClients: 1000, maxPerAddress: 20 });
    expect(load({ STREAM_MAX_CLIENTS: '5', STREAM_MAX_PER_ADDRESS: '2' }).streams).toEqual({
      maxClients: 5,
      maxPerAddress: 2,
    });
    expect(problemsOf({ STREAM_MAX_CLIENTS: '0', STREAM_MAX_PER_ADDRESS: '-1' })).toHaveLength(2);
  });

  it('keeps quotes 7 days, 1-minute candles 30 days and idempotency keys 24 hours by default', () => {
    expect(load({}).retention).toEqual({ quoteDays: 7, minuteCandleDays: 30, idempotencyKeyHours: 24 });
    expect(
      load({ QUOTE_RETENTION_DAYS: '2', MINUTE_CANDLE_RETENTION_DAYS: '90', IDEMPOTENCY_KEY_HOURS: '48' })
        .retention,
    ).toEqual({ quoteDays: 2, minuteCandleDays: 90, idempotencyKeyHours: 48 });
    expect(
      problemsOf({
        QUOTE_RETENTION_DAYS: '0',
        MINUTE_CANDLE_RETENTION_DAYS: '1.5',
        IDEMPOTENCY_KEY_HOURS: 'x',
      })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['IDEMPOTENCY_KEY_HOURS', 'MINUTE_CANDLE_RETENTION_DAYS', 'QUOTE_RETENTION_DAYS']);
  });

  it('reads the consumer-price settings: Energinet GLN, price area, exact markup and VAT rate', () => {
    const d = load({});
    expect([d.energinetGln, d.priceArea, d.supplierMarkupDkkKwh, d.vatRate]).toEqual([
      '5790000432752',
      'DK1',
      '0',
      '0.25',
    ]);
    const c = load({ PRICE_AREA: 'dk2', SUPPLIER_MARKUP_DKK_KWH: '0.049375', VAT_RATE: '0.2' });
    expect([c.priceArea, c.supplierMarkupDkkKwh, c.vatRate]).toEqual(['DK2', '0.049375', '0.2']);
    expect(load({ SUPPLIER_MARKUP_DKK_KWH: '-0.01' }).supplierMarkupDkkKwh).toBe('-0.01');
    for (const [name, value] of [
      ['ENERGINET_GLN', '579000043275'],
      ['PRICE_AREA', 'DK3'],
      ['SUPPLIER_MARKUP_DKK_KWH', '0.1234567'],
      ['SUPPLIER_MARKUP_DKK_KWH', '1e-3'],
      ['VAT_RATE', '25'],
      ['VAT_RATE', '1.5'],
      ['VAT_RATE', '.25'],
    ] as const)
      expect(problemsOf({ [name]: value }), `${name}=${value}`).toEqual([
        expect.stringMatching(new RegExp(`^${name}: `)),
      ]);
  });

  it('has no grid company by default; GRID_COMPANY_GLN must be a known company unless GRID_TARIFF_NOTES names its notes', () => {
    const d = load({});
    expect([d.gridCompanyGln, d.gridTariffNotes, d.supplierSubscriptionDkkMonth]).toEqual([null, null, '0']);
    expect(load({ GRID_COMPANY_GLN: '5790000610099' }).gridCompanyGln).toBe('5790000610099');
    const own = load({
      GRID_COMPANY_GLN: '5790000000005',
      GRID_TARIFF_NOTES: 'Nettarif C time; Transportbetaling, eget net C',
    });
    expect(own.gridTariffNotes).toEqual(['Nettarif C time', 'Transportbetaling, eget net C']);
    expect(load({ SUPPLIER_SUBSCRIPTION_DKK_MONTH: '29.5' }).supplierSubscriptionDkkMonth).toBe('29.5');
    const bad: Record<string, string>[] = [
      { GRID_COMPANY_GLN: '5790000000005' },
      { GRID_COMPANY_GLN: '579000061009' },
      { GRID_TARIFF_NOTES: 'Nettarif C' },
      { GRID_COMPANY_GLN: '5790000000005', GRID_TARIFF_NOTES: ' ; ' },
      { SUPPLIER_SUBSCRIPTION_DKK_MONTH: '-1' },
      { SUPPLIER_SUBSCRIPTION_DKK_MONTH: '1e3' },
      { SUPPLIER_SUBSCRIPTION_DKK_MONTH: '0.12345' },
    ];
    for (const env of bad)
      expect(problemsOf(env), JSON.stringify(env)).toEqual([
        expect.stringMatching(new RegExp(`^${Object.keys(env).at(-1)}: `)),
      ]);
  });

  it('caps provider answers at PROVIDER_MAX_BYTES, 16 MiB by default', () => {
    expect(load({}).providerMaxBytes).toBe(16 * 1024 * 1024);
    expect(load({ PROVIDER_MAX_BYTES: '65536' }).providerMaxBytes).toBe(65536);
    expect(problemsOf({ PROVIDER_MAX_BYTES: '16MiB' })).toEqual([
      expect.stringMatching(/^PROVIDER_MAX_BYTES: /),
    ]);
    expect(problemsOf({ PROVIDER_MAX_BYTES: '10' })).toEqual([
      expect.stringMatching(/^PROVIDER_MAX_BYTES: /),
    ]);
  });

  it('lists a default for every variable', () => {
    expect(Object.keys(DEFAULTS)).toContain('METERING_FEED_URL');
    expect(problemsOf({ QUOTE_TOTAL_EUR: '-5', GRID_COMPANY_GLN: '123' })).toHaveLength(2);
  });
});

describe('MQTT', () => {
  it('is off by default, with satwatt and homeassistant as the prefixes', () => {
    expect(load({}).mqtt).toEqual({
      broker: null,
      topicPrefix: 'satwatt',
      discoveryPrefix: 'homeassistant',
      private: false,
    });
  });

  it('keeps the credentials apart from the broker URL, decoded', () => {
    const c = load({
      MQTT_URL: 'mqtts://ha%20user:p%40ss%2Fw0rd@broker.lan:8883',
      MQTT_PRIVATE: 'true',
    }).mqtt;
    expect(c.broker).toEqual({ url: 'mqtts://broker.lan:8883', username: 'ha user', password: 'p@ss/w0rd' });
    expect(c.private).toBe(true);
    expect(load({ MQTT_URL: 'mqtt://127.0.0.1' }).mqtt.broker).toEqual({ url: 'mqtt://127.0.0.1' });
  });

  it.each([
    ['http://u:hunter2-secret@broker:1883', /expected mqtt:\/\/host:port/],
    ['mqtt://u:hunter2-secret@broker:99999', /not a valid URL/],
    ['mqtt://u:hunter2-secret@broker:1883/topic', /only user, password, host and port/],
    ['mqtt://u:hunter2-secret@broker:1883?x=1', /only user, password, host and port/],
    ['mqtt://u:hunter2%zz-secret@broker:1883', /broken %-escape/],
    ['mqtt://u:hunter2-secret@', /no host|not a valid URL/],
    ['broker:1883 hunter2-secret', /not a valid URL|expected mqtt/],
  ])('refuses MQTT_URL %s without showing the password', (url, why) => {
    const problems = problemsOf({ MQTT_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MQTT_URL: /);
    expect(problems[0]).toMatch(why);
    expect(problems[0]).not.toContain('hunter2');
  });

  it('writes statistics to Home Assistant only with both HA_URL and HA_TOKEN', () => {
    expect(load({}).homeAssistant).toBeNull();
    const token = 'eyJhbGciOi.hunter2-ha-token';
    expect(load({ HA_URL: 'http://homeassistant.local:8123/', HA_TOKEN: token }).homeAssistant).toEqual({
      url: 'http://homeassistant.local:8123',
      token,
    });
    for (const [env, line] of [
      [{ HA_URL: 'ws://ha.lan:8123', HA_TOKEN: token }, /^HA_URL: expected Home Assistant's http/],
      [{ HA_URL: 'homeassistant.local:8123', HA_TOKEN: token }, /^HA_URL: expected|^HA_URL: not a valid URL/],
      [{ HA_URL: 'http://u:hunter2-ha-token@ha.lan', HA_TOKEN: token }, /^HA_URL: must not hold credentials/],
      [{ HA_URL: 'https://ha.lan' }, /^HA_URL: needs HA_TOKEN/],
      [{ HA_TOKEN: token }, /^HA_TOKEN: needs HA_URL/],
    ] as const) {
      const problems = problemsOf(env);
      expect(problems, JSON.stringify(env)).toEqual([expect.stringMatching(line)]);
      expect(problems[0]).not.toContain('hunter2');
    }
  });

  it.each(['a/#', '+', 'a//b', '/satwatt', 'satwatt/', 'sat watt', 'a\u0000b', 'x'.repeat(101)])(
    'refuses the topic prefix %j',
    (prefix) => {
      expect(problemsOf({ MQTT_TOPIC_PREFIX: prefix })).toEqual([
        expect.stringMatching(/^MQTT_TOPIC_PREFIX: /),
      ]);
      expect(problemsOf({ MQTT_DISCOVERY_PREFIX: prefix })).toEqual([
        expect.stringMatching(/^MQTT_DISCOVERY_PREFIX: /),
      ]);
    },
  );

  it('refuses a topic prefix equal to the discovery prefix, whose status is Home Assistant’s', () => {
    expect(problemsOf({ MQTT_TOPIC_PREFIX: 'homeassistant' })).toEqual([
      expect.stringMatching(/^MQTT_TOPIC_PREFIX: must differ from MQTT_DISCOVERY_PREFIX/),
    ]);
    expect(load({ MQTT_TOPIC_PREFIX: 'home/satwatt-1', MQTT_DISCOVERY_PREFIX: 'ha' }).mqtt).toMatchObject({
      topicPrefix: 'home/satwatt-1',
      discoveryPrefix: 'ha',
    });
    expect(problemsOf({ MQTT_PRIVATE: 'sometimes' })).toEqual([expect.stringMatching(/^MQTT_PRIVATE: /)]);
  });
});

describe('.env.example', () => {
  it('turns the daily backup on with BACKUP_DIR, keeping 7 by default, and refuses it with a server', () => {
    expect(load({}).backup).toBeNull();
    expect(load({ BACKUP_DIR: 'backups' }).backup).toEqual({ dir: '/nonexistent-dir/backups', keep: 7 });
    expect(load({ BACKUP_DIR: '/srv/b', BACKUP_KEEP: '30' }).backup).toEqual({ dir: '/srv/b', keep: 30 });
    for (const keep of ['0', '-1', '1.5', 'all', '10001'])
      expect(problemsOf({ BACKUP_DIR: '/srv/b', BACKUP_KEEP: keep })).toEqual([
        `BACKUP_KEEP: expected a whole number from 1 to 10000, got "${keep}"`,
      ]);
    expect(problemsOf({ BACKUP_DIR: '/srv/b', DATABASE_URL: 'postgres://h/db' })).toEqual([
      expect.stringMatching(/^BACKUP_DIR: the daily backup is of the embedded database; .*pg_dump/),
    ]);
  });

  it('lists every variable with its default', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('dotenv');
    const example = parse(readFileSync(new URL('../.env.example', import.meta.url)));
    expect(example).toEqual(DEFAULTS);
  });
});
