import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import {
  isAddressOrRange,
  isLoopback,
  parseJdbcUrl,
  parseMqttUrl,
  parsePostgresUrl,
  PROXY_NAMES,
  type MqttBroker,
  type PgConnection,
} from './config-values.js';

import { DEFAULTS } from './config-variables.js';
import { gridCompany } from './power/household/grid-companies.js';
import { NETWORKS, type Network } from './btc/chain/network.js';

export { DEFAULTS } from './config-variables.js';
export {
  isLoopback,
  parseJdbcUrl,
  parsePostgresUrl,
  type MqttBroker,
  type PgConnection,
} from './config-values.js';

export const SERVICE_NAMES = ['btc', 'power'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface Config {
  port: number;
  host: string;
  services: readonly ServiceName[];
  /** null means the embedded database in dataDir */
  database: PgConnection | null;
  dataDir: string;
  /** A daily backup of the embedded database into this folder, the oldest beyond `keep` removed; null is off. */
  backup: { dir: string; keep: number } | null;
  /** A backup download whose client leaves the data unread this long is cut off. */
  backupStallMs: number;
  /** The embedded database's commits reach the disk (fsync) before they are acknowledged. */
  dataFsync: boolean;
  apiToken: string | null;
  logLevel: string;
  /** Lines for people (pino-pretty) or one JSON object a line (journald, log shippers). */
  logFormat: 'pretty' | 'json';
  providerTimeoutMs: number;
  /** Largest provider answer body; a larger one fails the call as a provider failure. */
  providerMaxBytes: number;
  limits: {
    bodyBytes: number;
    requestTimeoutMs: number;
    /** Write requests per minute per client address. */
    writesPerMinute: number;
    /** Origins allowed by CORS; empty means no cross-origin access. */
    corsOrigins: readonly string[];
    /** Wrong-token attempts per minute per client address; past it 429. */
    authFailuresPerMinute: number;
  };
  /**
   * Which proxies' X-Forwarded-For to believe, so that limits see the client's address: false
   * (none), true (any), a hop count, or addresses and CIDR ranges (and proxy-addr's names
   * loopback, linklocal, uniquelocal).
   */
  trustProxy: boolean | number | readonly string[];
  feeds: {
    spot: boolean;
    ohlc: boolean;
    quote: boolean;
    rates: boolean;
    price: boolean;
    /** The CO₂ values every 15 minutes (on the leader). */
    co2: boolean;
    /** The daily metering sync (on the leader, with a metering token). */
    meteringSync: boolean;
  };
  quoteTotalEur: string;
  streams: {
    /** Price and quote streams (WebSocket and SSE) open at once, in all; past it 503. */
    maxClients: number;
    /** The same per client address (request.ip, so TRUST_PROXY applies); past it 429. */
    maxPerAddress: number;
  };
  retention: {
    /** Quotes are kept whole this long, then folded into hourly rows. */
    quoteDays: number;
    /** 1-minute candles are kept this long; hourly and daily ones for good. */
    minuteCandleDays: number;
    /** Idempotency keys (and the answers they replay) are kept this long. */
    idempotencyKeyHours: number;
  };
  strikeApiKey: string | null;
  /** The watch-only wallets' scans (docs/chain.md). */
  chain: {
    /** The household's Esplora; null is off. It may hold a user and password: never shown. */
    esploraUrl: string | null;
    gapLimit: number;
    network: Network;
  };
  meteringToken: string | null;
  meteringTokenFile: string;
  /** The grid company whose tariff applies without a metering token; null = not configured. */
  gridCompanyGln: string | null;
  /** Notes of the grid company's household tariff in DatahubPricelist, overriding the shipped list. */
  gridTariffNotes: readonly string[] | null;
  /** Energinet's GLN in DatahubPricelist: its transmission and system tariffs and the electricity tax. */
  energinetGln: string;
  /** The household's price area: the default of the consumer-price routes and the area of its costs. */
  priceArea: 'DK1' | 'DK2';
  /** The supplier's markup, DKK/kWh excl. VAT, as exact decimal text. */
  supplierMarkupDkkKwh: string;
  /** The supplier's own subscription, DKK per month excl. VAT, as exact decimal text. */
  supplierSubscriptionDkkMonth: string;
  /** VAT rate as exact decimal text (0.25 = 25 %). */
  vatRate: string;
  urls: {
    spot: string;
    ohlc: string;
    quote: string;
    rates: string;
    price: string;
    metering: string;
  };
  mqtt: {
    /** null: MQTT is off. The URL holds no credentials; they are kept apart and never shown. */
    broker: MqttBroker | null;
    /** Topics of the states and of the availability (`<topicPrefix>/status`). */
    topicPrefix: string;
    /** Home Assistant's discovery prefix; it announces itself at `<discoveryPrefix>/status`. */
    discoveryPrefix: string;
    /** Also publish the household's own figures (portfolio, electricity costs). */
    private: boolean;
  };
  /** null: the statistics are not written. The token is a secret: never logged, never shown. */
  homeAssistant: { url: string; token: string } | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

type VarName = keyof typeof DEFAULTS;

/**
 * The only reader of the environment. Variables set in the process win over `.env` in `cwd`.
 * Collects every problem before failing, so a user fixes them all in one go.
 */
export function loadConfig(
  env: Env = process.env,
  cwd = process.cwd(),
  /** Whether stdout is a terminal: LOG_FORMAT's default. */
  stdoutIsTty = process.stdout.isTTY === true,
): Config {
  const dotenvPath = path.join(cwd, '.env');
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {};
  const problems: string[] = [];
  const raw = (name: VarName): string => {
    const v = env[name] ?? fromFile[name];
    return v === undefined || v.trim() === '' ? DEFAULTS[name] : v.trim();
  };
  const fail = <T>(name: VarName, why: string, fallback: T): T => {
    problems.push(`${name}: ${why}`);
    return fallback;
  };

  const int = (name: VarName, min: number, max: number): number => {
    const v = raw(name);
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max)
      return fail(name, `expected a whole number from ${min} to ${max}, got "${v}"`, min);
    return n;
  };
  const bool = (name: VarName): boolean => {
    const v = raw(name).toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    return fail(name, `expected true or false, got "${v}"`, false);
  };
  const url = (name: VarName, protocols: string[]): string => {
    const v = raw(name);
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol))
        return fail(name, `expected a ${protocols.join(' or ')} URL, got "${u.protocol}"`, v);
      return v.replace(/\/+$/, '');
    } catch {
      return fail(name, `not a valid URL: "${v}"`, v);
    }
  };
  const optional = (name: VarName): string | null => {
    const v = raw(name);
    return v === '' ? null : v;
  };

  const origins = (): string[] => {
    const list = raw('CORS_ORIGINS')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    for (const o of list) {
      try {
        if (new URL(o).origin !== o) throw new Error();
      } catch {
        fail(
          'CORS_ORIGINS',
          `expected a comma-separated list of origins like https://example.com, got "${o}"`,
          0,
        );
      }
    }
    return list;
  };

  const trustProxy = (): Config['trustProxy'] => {
    const v = raw('TRUST_PROXY');
    if (['false', '0', 'no', 'off'].includes(v.toLowerCase())) return false;
    if (['true', 'yes', 'on'].includes(v.toLowerCase())) return true;
    if (/^\d{1,2}$/.test(v)) return Number(v);
    const list = v
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const bad = list.filter((p) => !PROXY_NAMES.includes(p) && !isAddressOrRange(p));
    if (bad.length > 0)
      return fail(
        'TRUST_PROXY',
        `expected false, true, a hop count, or addresses and CIDR ranges of proxies (or loopback, linklocal, uniquelocal), got "${bad.join(', ')}"`,
        false,
      );
    return list;
  };

  const services = raw('SERVICES')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = services.filter((s) => !(SERVICE_NAMES as readonly string[]).includes(s));
  if (unknown.length > 0 || services.length === 0)
    fail(
      'SERVICES',
      `expected a comma-separated list of ${SERVICE_NAMES.join(', ')}, got "${raw('SERVICES')}"`,
      0,
    );

  const host = raw('HOST');
  const apiToken = optional('API_TOKEN');
  if (apiToken !== null && apiToken.length < 16) fail('API_TOKEN', 'must be at least 16 characters long', 0);
  if (apiToken === null && !isLoopback(host))
    fail('API_TOKEN', `required when HOST is not a loopback address (HOST is "${host}")`, 0);

  let database: PgConnection | null = null;
  const databaseUrl = optional('DATABASE_URL');
  const jdbcUrl = optional('JDBC_URL');
  try {
    if (databaseUrl !== null) database = parsePostgresUrl(databaseUrl);
    else if (jdbcUrl !== null) database = parseJdbcUrl(jdbcUrl);
  } catch (e) {
    fail(databaseUrl !== null ? 'DATABASE_URL' : 'JDBC_URL', (e as Error).message, 0);
  }

  const backupDir = optional('BACKUP_DIR');
  if (backupDir !== null && database !== null)
    fail(
      'BACKUP_DIR',
      'the daily backup is of the embedded database; with DATABASE_URL or JDBC_URL back the server up with pg_dump (docs/operations.md, "Backups")',
      0,
    );
  const backupKeep = int('BACKUP_KEEP', 1, 10_000);

  const quoteTotal = raw('QUOTE_TOTAL_EUR');
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(quoteTotal) || Number(quoteTotal) <= 0)
    fail('QUOTE_TOTAL_EUR', `expected a positive amount with at most 2 decimals, got "${quoteTotal}"`, 0);
  const gln = optional('GRID_COMPANY_GLN');
  if (gln !== null && !/^\d{13}$/.test(gln))
    fail('GRID_COMPANY_GLN', `expected a 13-digit GLN number, got "${gln}"`, 0);
  const notesText = optional('GRID_TARIFF_NOTES');
  const gridTariffNotes =
    notesText === null
      ? null
      : notesText
          .split(';')
          .map((n) => n.trim())
          .filter(Boolean);
  if (
    gridTariffNotes !== null &&
    (gridTariffNotes.length === 0 || gridTariffNotes.some((n) => n.length > 200))
  )
    fail(
      'GRID_TARIFF_NOTES',
      `expected notes separated by ";" (e.g. "Nettarif C time"), got "${notesText}"`,
      0,
    );
  if (gln !== null && /^\d{13}$/.test(gln) && gridTariffNotes === null && !gridCompany(gln))
    fail(
      'GRID_COMPANY_GLN',
      `${gln} is no Danish grid company satwatt knows (docs/power.md lists them); set GRID_TARIFF_NOTES to the notes of its household tariff in DatahubPricelist`,
      0,
    );
  if (gridTariffNotes !== null && gln === null)
    fail('GRID_TARIFF_NOTES', 'needs GRID_COMPANY_GLN: the notes are looked up under that grid company', 0);
  const subscription = raw('SUPPLIER_SUBSCRIPTION_DKK_MONTH');
  if (!/^\d{1,6}(\.\d{1,4})?$/.test(subscription))
    fail(
      'SUPPLIER_SUBSCRIPTION_DKK_MONTH',
      `expected an amount in DKK per month excl. VAT, at least 0, with at most 4 decimals (e.g. 29), got "${subscription}"`,
      0,
    );
  const energinetGln = raw('ENERGINET_GLN');
  if (!/^\d{13}$/.test(energinetGln))
    fail('ENERGINET_GLN', `expected a 13-digit GLN number, got "${energinetGln}"`, 0);
  const priceArea = raw('PRICE_AREA').toUpperCase();
  if (priceArea !== 'DK1' && priceArea !== 'DK2')
    fail('PRICE_AREA', `expected DK1 or DK2, got "${raw('PRICE_AREA')}"`, 0);
  const markup = raw('SUPPLIER_MARKUP_DKK_KWH');
  if (!/^-?\d{1,3}(\.\d{1,6})?$/.test(markup))
    fail(
      'SUPPLIER_MARKUP_DKK_KWH',
      `expected an amount in DKK/kWh excl. VAT with at most 6 decimals (e.g. 0.05), got "${markup}"`,
      0,
    );
  const vatRate = raw('VAT_RATE');
  if (!/^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(vatRate))
    fail(
      'VAT_RATE',
      `expected a rate from 0 to 1 with at most 4 decimals (0.25 is 25 %), got "${vatRate}"`,
      0,
    );
  let broker: MqttBroker | null = null;
  const mqttUrl = optional('MQTT_URL');
  try {
    if (mqttUrl !== null) broker = parseMqttUrl(mqttUrl);
  } catch (e) {
    fail('MQTT_URL', (e as Error).message, 0);
  }
  const topic = (name: 'MQTT_TOPIC_PREFIX' | 'MQTT_DISCOVERY_PREFIX'): string => {
    const v = raw(name);
    if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(v) || v.length > 100)
      fail(
        name,
        `expected topic levels of letters, digits, _ and - joined by /, got "${v.slice(0, 100)}"`,
        0,
      );
    return v;
  };
  const topicPrefix = topic('MQTT_TOPIC_PREFIX');
  const discoveryPrefix = topic('MQTT_DISCOVERY_PREFIX');
  // <prefix>/status is satwatt's availability, <discovery>/status Home Assistant's birth message
  if (topicPrefix === discoveryPrefix)
    fail('MQTT_TOPIC_PREFIX', `must differ from MQTT_DISCOVERY_PREFIX ("${discoveryPrefix}")`, 0);

  const haUrl = optional('HA_URL');
  const haToken = optional('HA_TOKEN');
  let homeAssistant: Config['homeAssistant'] = null;
  if (haUrl !== null) {
    let u: URL | null = null;
    try {
      u = new URL(haUrl);
    } catch {
      fail('HA_URL', `not a valid URL: "${haUrl.slice(0, 200)}"`, 0);
    }
    if (u && u.protocol !== 'http:' && u.protocol !== 'https:')
      fail('HA_URL', `expected Home Assistant's http:// or https:// address, got "${u.protocol}"`, 0);
    else if (u && (u.username || u.password))
      fail('HA_URL', 'must not hold credentials: the access token goes in HA_TOKEN', 0);
    else if (u && haToken === null)
      fail('HA_URL', 'needs HA_TOKEN, a long-lived access token made in Home Assistant', 0);
    else if (u && haToken !== null) homeAssistant = { url: haUrl.replace(/\/+$/, ''), token: haToken };
  } else if (haToken !== null) fail('HA_TOKEN', 'needs HA_URL, the address of Home Assistant', 0);
  const esploraUrl = optional('ESPLORA_URL');
  if (esploraUrl !== null) {
    let u: URL | null = null;
    try {
      u = new URL(esploraUrl);
    } catch {
      fail(
        'ESPLORA_URL',
        'not a valid URL (expected http://host:port/path, e.g. http://umbrel.local:3006/api)',
        0,
      );
    }
    if (u && u.protocol !== 'http:' && u.protocol !== 'https:')
      fail('ESPLORA_URL', `expected an http or https URL, got "${u.protocol}"`, 0);
  }
  const chainNetwork = raw('CHAIN_NETWORK').toLowerCase();
  if (!(NETWORKS as readonly string[]).includes(chainNetwork))
    fail('CHAIN_NETWORK', `expected one of ${NETWORKS.join(', ')}, got "${raw('CHAIN_NETWORK')}"`, 0);

  const logLevel = raw('LOG_LEVEL');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    fail('LOG_LEVEL', `expected one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`, 0);
  const logFormat = raw('LOG_FORMAT') || (stdoutIsTty ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json')
    fail('LOG_FORMAT', `expected pretty or json, got "${logFormat}"`, 0);

  const config: Config = {
    port: int('PORT', 0, 65535),
    host,
    services: [...new Set(services)] as ServiceName[],
    database,
    dataDir: path.resolve(cwd, raw('DATA_DIR')),
    backup: backupDir === null ? null : { dir: path.resolve(cwd, backupDir), keep: backupKeep },
    backupStallMs: int('BACKUP_STALL_MS', 100, 3_600_000),
    dataFsync: bool('DATA_FSYNC'),
    apiToken,
    logLevel,
    logFormat: logFormat === 'pretty' ? 'pretty' : 'json',
    providerTimeoutMs: int('PROVIDER_TIMEOUT_MS', 100, 300_000),
    providerMaxBytes: int('PROVIDER_MAX_BYTES', 1024, 1024 * 1024 * 1024),
    limits: {
      bodyBytes: int('BODY_LIMIT_BYTES', 1024, 100 * 1024 * 1024),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 1000, 600_000),
      writesPerMinute: int('WRITE_RATE_LIMIT', 1, 1_000_000),
      corsOrigins: origins(),
      authFailuresPerMinute: int('AUTH_FAILURE_LIMIT', 1, 1_000_000),
    },
    trustProxy: trustProxy(),
    feeds: {
      spot: bool('SPOT_FEED_ENABLED'),
      ohlc: bool('OHLC_FEED_ENABLED'),
      quote: bool('QUOTE_FEED_ENABLED'),
      rates: bool('RATES_FEED_ENABLED'),
      price: bool('PRICE_FEED_ENABLED'),
      co2: bool('CO2_FEED_ENABLED'),
      meteringSync: bool('METERING_SYNC_ENABLED'),
    },
    quoteTotalEur: quoteTotal,
    streams: {
      maxClients: int('STREAM_MAX_CLIENTS', 1, 1_000_000),
      maxPerAddress: int('STREAM_MAX_PER_ADDRESS', 1, 1_000_000),
    },
    retention: {
      quoteDays: int('QUOTE_RETENTION_DAYS', 1, 36_500),
      minuteCandleDays: int('MINUTE_CANDLE_RETENTION_DAYS', 1, 36_500),
      idempotencyKeyHours: int('IDEMPOTENCY_KEY_HOURS', 1, 876_000),
    },
    strikeApiKey: optional('STRIKE_API_KEY'),
    chain: {
      esploraUrl: esploraUrl?.replace(/\/+$/, '') ?? null,
      gapLimit: int('CHAIN_GAP_LIMIT', 1, 1000),
      network: chainNetwork as Network,
    },
    meteringToken: optional('METERING_TOKEN'),
    meteringTokenFile: path.resolve(cwd, '.token'),
    gridCompanyGln: gln,
    gridTariffNotes,
    energinetGln,
    priceArea: priceArea as Config['priceArea'],
    supplierMarkupDkkKwh: markup.replace(/^-0(\.0*)?$/, '0'),
    vatRate,
    supplierSubscriptionDkkMonth: subscription,
    urls: {
      spot: url('SPOT_FEED_URL', ['ws:', 'wss:']),
      ohlc: url('OHLC_FEED_URL', ['http:', 'https:']),
      quote: url('QUOTE_FEED_URL', ['http:', 'https:']),
      rates: url('RATES_FEED_URL', ['http:', 'https:']),
      price: url('PRICE_FEED_URL', ['http:', 'https:']),
      metering: url('METERING_FEED_URL', ['http:', 'https:']),
    },
    mqtt: { broker, topicPrefix, discoveryPrefix, private: bool('MQTT_PRIVATE') },
    homeAssistant,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
