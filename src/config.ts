import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { readVariables, type Values } from './config/variables.js';

export { DEFAULTS, VARIABLES } from './config/variables.js';
export { SERVICE_NAMES, type ServiceName } from './config/server.js';
export { NETWORKS, type Network } from './config/bitcoin.js';
export {
  isLoopback,
  parseJdbcUrl,
  parsePostgresUrl,
  type MqttBroker,
  type PgConnection,
} from './config/values.js';

/** The configuration as the process uses it: every variable's value (src/config/), grouped. */
export type Config = ReturnType<typeof configOf>;

/** The config of the variables' values; exported for the test that every value is in it. */
export function configOf(v: Values, cwd: string) {
  return {
    port: v.PORT,
    host: v.HOST,
    services: v.SERVICES,
    /** null means the embedded database in dataDir */
    database: v.DATABASE_URL ?? v.JDBC_URL,
    dataDir: v.DATA_DIR,
    /** A daily backup of the embedded database into this folder, the oldest beyond `keep` removed; null is off. */
    backup: v.BACKUP_DIR === null ? null : { dir: v.BACKUP_DIR, keep: v.BACKUP_KEEP },
    /** A backup download whose client leaves the data unread this long is cut off. */
    backupStallMs: v.BACKUP_STALL_MS,
    /** The embedded database's commits reach the disk (fsync) before they are acknowledged. */
    dataFsync: v.DATA_FSYNC,
    apiToken: v.API_TOKEN,
    logLevel: v.LOG_LEVEL as string,
    /** Lines for people (pino-pretty) or one JSON object a line (journald, log shippers). */
    logFormat: v.LOG_FORMAT,
    providerTimeoutMs: v.PROVIDER_TIMEOUT_MS,
    /** Largest provider answer body; a larger one fails the call as a provider failure. */
    providerMaxBytes: v.PROVIDER_MAX_BYTES,
    limits: {
      bodyBytes: v.BODY_LIMIT_BYTES,
      requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
      /** Write requests per minute per client address. */
      writesPerMinute: v.WRITE_RATE_LIMIT,
      /** Origins allowed by CORS; empty means no cross-origin access. */
      corsOrigins: v.CORS_ORIGINS as readonly string[],
      /** Wrong-token attempts per minute per client address; past it 429. */
      authFailuresPerMinute: v.AUTH_FAILURE_LIMIT,
    },
    /**
     * Which proxies' X-Forwarded-For to believe, so that limits see the client's address: false
     * (none), true (any), a hop count, or addresses and CIDR ranges (and proxy-addr's names
     * loopback, linklocal, uniquelocal).
     */
    trustProxy: v.TRUST_PROXY as boolean | number | readonly string[],
    feeds: {
      btcPrice: v.SPOT_FEED_ENABLED,
      ohlc: v.OHLC_FEED_ENABLED,
      quote: v.QUOTE_FEED_ENABLED,
      rates: v.RATES_FEED_ENABLED,
      dayAhead: v.PRICE_FEED_ENABLED,
      /** The CO₂ values every 15 minutes (on the leader). */
      co2: v.CO2_FEED_ENABLED,
      /** The daily metering sync (on the leader, with a metering token). */
      meteringSync: v.METERING_SYNC_ENABLED,
    },
    quoteTotalEur: v.QUOTE_TOTAL_EUR,
    streams: {
      /** Price and quote streams (WebSocket and SSE) open at once, in all; past it 503. */
      maxClients: v.STREAM_MAX_CLIENTS,
      /** The same per client address (request.ip, so TRUST_PROXY applies); past it 429. */
      maxPerAddress: v.STREAM_MAX_PER_ADDRESS,
    },
    retention: {
      /** Quotes are kept whole this long, then folded into hourly rows. */
      quoteDays: v.QUOTE_RETENTION_DAYS,
      /** 1-minute candles are kept this long; hourly and daily ones for good. */
      minuteCandleDays: v.MINUTE_CANDLE_RETENTION_DAYS,
      /** Idempotency keys (and the answers they replay) are kept this long. */
      idempotencyKeyHours: v.IDEMPOTENCY_KEY_HOURS,
    },
    strikeApiKey: v.STRIKE_API_KEY,
    /** The watch-only wallets' scans (docs/chain.md). */
    chain: {
      /** The household's Esplora; null is off. It may hold a user and password: never shown. */
      esploraUrl: v.ESPLORA_URL,
      gapLimit: v.CHAIN_GAP_LIMIT,
      network: v.CHAIN_NETWORK,
    },
    /** Pairs of owners who are spouses living together (src/btc/tax): their moves keep cost and date. */
    taxSpouses: v.TAX_SPOUSES as readonly (readonly [string, string])[],
    meteringToken: v.METERING_TOKEN,
    meteringTokenFile: path.resolve(cwd, '.token'),
    /** The grid company whose tariff applies without a metering token; null = not configured. */
    gridCompanyGln: v.GRID_COMPANY_GLN,
    /** Notes of the grid company's household tariff in DatahubPricelist, overriding the shipped list. */
    gridTariffNotes: v.GRID_TARIFF_NOTES as readonly string[] | null,
    /** Energinet's GLN in DatahubPricelist: its transmission and system tariffs and the electricity tax. */
    energinetGln: v.ENERGINET_GLN,
    /** The household's price area: the default of the consumer-price routes and the area of its costs. */
    priceArea: v.PRICE_AREA,
    /** The supplier's markup, DKK/kWh excl. VAT, as exact decimal text. */
    supplierMarkupDkkKwh: v.SUPPLIER_MARKUP_DKK_KWH,
    /** The supplier's own subscription, DKK per month excl. VAT, as exact decimal text. */
    supplierSubscriptionDkkMonth: v.SUPPLIER_SUBSCRIPTION_DKK_MONTH,
    /** VAT rate as exact decimal text (0.25 = 25 %). */
    vatRate: v.VAT_RATE,
    urls: {
      spot: v.SPOT_FEED_URL,
      ohlc: v.OHLC_FEED_URL,
      quote: v.QUOTE_FEED_URL,
      rates: v.RATES_FEED_URL,
      price: v.PRICE_FEED_URL,
      metering: v.METERING_FEED_URL,
    },
    mqtt: {
      /** null: MQTT is off. The URL holds no credentials; they are kept apart and never shown. */
      broker: v.MQTT_URL,
      /** Topics of the states and of the availability (`<topicPrefix>/status`). */
      topicPrefix: v.MQTT_TOPIC_PREFIX,
      /** Home Assistant's discovery prefix; it announces itself at `<discoveryPrefix>/status`. */
      discoveryPrefix: v.MQTT_DISCOVERY_PREFIX,
      /** Also publish the household's own figures (portfolio, electricity costs). */
      private: v.MQTT_PRIVATE,
    },
    /** null: the statistics are not written. The token is a secret: never logged, never shown. */
    homeAssistant: v.HA_URL !== null && v.HA_TOKEN !== null ? { url: v.HA_URL, token: v.HA_TOKEN } : null,
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
  }
}

/**
 * The only reader of the environment. Variables set in the process win over `.env` in `cwd`.
 * Collects every problem before failing, so a user fixes them all in one go.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
  /** Whether stdout is a terminal: LOG_FORMAT's default. */
  stdoutIsTty = process.stdout.isTTY === true,
): Config {
  const dotenvPath = path.join(cwd, '.env');
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {};
  const { values, problems } = readVariables((name) => env[name] ?? fromFile[name], { cwd, stdoutIsTty });
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(configOf(values, cwd));
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
