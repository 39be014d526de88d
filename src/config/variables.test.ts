import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { configOf } from '../config.js';
import { readVariables, VARIABLES, type VarName } from './variables.js';

const read = (env: Record<string, string>) =>
  readVariables((name) => env[name], { cwd: '/srv/satwatt', stdoutIsTty: false });

/** Every variable set to a value other than its default (an embedded database, then a server). */
const EMBEDDED: Partial<Record<VarName, string>> = {
  PORT: '8080',
  HOST: '0.0.0.0',
  SERVICES: 'power, btc',
  DATA_DIR: '/var/lib/satwatt',
  BACKUP_DIR: 'backups',
  BACKUP_KEEP: '30',
  BACKUP_STALL_MS: '1000',
  DATA_FSYNC: 'off',
  API_TOKEN: 'a-token-of-twenty-chars',
  LOG_LEVEL: 'debug',
  LOG_FORMAT: 'pretty',
  PROVIDER_TIMEOUT_MS: '5000',
  PROVIDER_MAX_BYTES: '65536',
  BODY_LIMIT_BYTES: '2048',
  REQUEST_TIMEOUT_MS: '1000',
  WRITE_RATE_LIMIT: '5',
  AUTH_FAILURE_LIMIT: '3',
  CORS_ORIGINS: 'https://example.com,http://localhost:5173',
  TRUST_PROXY: '10.0.0.0/8, loopback',
  SPOT_FEED_ENABLED: 'no',
  CO2_FEED_ENABLED: '0',
  QUOTE_TOTAL_EUR: '100.5',
  STREAM_MAX_CLIENTS: '5',
  QUOTE_RETENTION_DAYS: '2',
  STRIKE_API_KEY: 'strike-key',
  ESPLORA_URL: 'http://umbrel.local:3006/api/',
  CHAIN_GAP_LIMIT: '50',
  CHAIN_NETWORK: 'Signet',
  METERING_TOKEN: 'eyJ.metering',
  GRID_COMPANY_GLN: '5790000000005',
  GRID_TARIFF_NOTES: 'Nettarif C time; Transportbetaling, eget net C',
  PRICE_AREA: 'dk2',
  SUPPLIER_MARKUP_DKK_KWH: '-0.000',
  SUPPLIER_SUBSCRIPTION_DKK_MONTH: '29.5',
  VAT_RATE: '0.2',
  SPOT_FEED_URL: 'ws://127.0.0.1:9000/',
  PRICE_FEED_URL: 'http://127.0.0.1:9001',
  MQTT_URL: 'mqtts://user:p%40ss@broker.lan:8883',
  MQTT_TOPIC_PREFIX: 'home/satwatt-1',
  MQTT_DISCOVERY_PREFIX: 'ha',
  MQTT_PRIVATE: 'true',
  HA_URL: 'https://ha.lan:8123/',
  HA_TOKEN: 'ha-token',
};
const SERVER = {
  ...EMBEDDED,
  BACKUP_DIR: '',
  JDBC_URL: 'jdbc:postgresql://db.lan/satwatt?user=u&password=p',
};

describe('the declarations of the configuration variables', () => {
  it.each([
    ['the defaults', {}],
    ['every variable set, with an embedded database', EMBEDDED],
    ['every variable set, with a server', SERVER],
  ])('read %s into values their schemas hold', (_name, env) => {
    const { values, problems } = read(env);
    expect(problems).toEqual([]);
    for (const [name, v] of Object.entries(VARIABLES))
      expect(
        Value.Check(v.schema(Type), values[name as VarName]),
        `${name}: ${JSON.stringify(values[name as VarName])}`,
      ).toBe(true);
    expect(Object.keys(values)).toEqual(Object.keys(VARIABLES));
  });

  it("list the refusals between variables first, then each variable's own, in the table's order", () => {
    const { problems } = read({ OHLC_FEED_ENABLED: 'perhaps', PORT: 'x', HOST: '0.0.0.0', API_TOKEN: '' });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['API_TOKEN', 'PORT', 'OHLC_FEED_ENABLED']);
    const short = read({ API_TOKEN: 'short', PORT: 'x', BACKUP_DIR: 'b', DATABASE_URL: 'postgres://h/db' });
    expect(short.problems.map((p) => p.split(':')[0])).toEqual(['BACKUP_DIR', 'PORT', 'API_TOKEN']);
  });

  it('are every one read into the config', () => {
    const { values } = read(EMBEDDED);
    const used = new Set<string>();
    const watched = new Proxy(values, {
      get: (target, name: string) => (used.add(name), target[name as VarName]),
    });
    configOf(watched, '/srv/satwatt');
    expect([...used].sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  it('never quote the text of a secret in a refusal', () => {
    const secrets = Object.entries(VARIABLES).filter(([, v]) => v.secret);
    expect(secrets.map(([name]) => name).sort()).toEqual(
      [
        'API_TOKEN',
        'DATABASE_URL',
        'ESPLORA_URL',
        'HA_TOKEN',
        'JDBC_URL',
        'METERING_TOKEN',
        'MQTT_URL',
        'STRIKE_API_KEY',
      ].sort(),
    );
    for (const text of ['hunter2', 'x://hunter2', 'http//u:hunter2@h', 'mqtt://u:hunter2@h/x']) {
      const env = Object.fromEntries(secrets.map(([name]) => [name, text]));
      const { problems } = read({ ...env, HOST: '0.0.0.0' });
      expect(problems.length, text).toBeGreaterThan(0);
      for (const p of problems) expect(p, text).not.toContain('hunter2');
    }
  });

  it('are read by the configuration without a feature folder: it imports only its own modules and shared/', () => {
    const dir = new URL('./', import.meta.url);
    const files = [
      new URL('../config.ts', import.meta.url),
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .map((f) => new URL(f, dir)),
    ];
    for (const file of files) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) => m[1]!);
      for (const i of imports)
        expect(new URL(i, file).pathname, `${file.pathname} imports ${i}`).toMatch(
          /\/src\/(config|shared)\//,
        );
    }
  });
});
