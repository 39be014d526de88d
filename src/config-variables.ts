/**
 * Every variable the service reads: its default and what it means. The README's table and
 * .env.example are generated from this list (`npm run config-docs`); a test keeps them current.
 */
export interface Variable {
  readonly group: string;
  readonly default: string;
  /** Markdown: the README shows it as is, .env.example as plain text. */
  readonly meaning: string;
}

export const VARIABLES = {
  PORT: {
    group: 'Process',
    default: '3030',
    meaning: 'HTTP port',
  },
  HOST: {
    group: 'Process',
    default: '127.0.0.1',
    meaning: 'bind address',
  },
  SERVICES: {
    group: 'Process',
    default: 'btc,power',
    meaning: 'which services this process runs',
  },
  DATABASE_URL: {
    group: 'Storage',
    default: '',
    meaning: '`postgres://user:password@host:port/database` of a PostgreSQL server',
  },
  JDBC_URL: {
    group: 'Storage',
    default: '',
    meaning: 'the same in JDBC form, `jdbc:postgresql://host:port/db?user=…&password=…`',
  },
  DATA_DIR: {
    group: 'Storage',
    default: './data',
    meaning: 'folder of the embedded database, used when no URL is set',
  },
  BACKUP_DIR: {
    group: 'Storage',
    default: '',
    meaning:
      'a daily backup of the embedded database (04:07 Danish time, and a minute after a start when the newest is a day old) into this folder; empty is off. Not with `DATABASE_URL` (use `pg_dump`). See [backups](docs/operations.md#backups-and-restore)',
  },
  BACKUP_KEEP: {
    group: 'Storage',
    default: '7',
    meaning: 'daily backups kept in `BACKUP_DIR`; the oldest beyond it are removed',
  },
  BACKUP_STALL_MS: {
    group: 'Storage',
    default: '60000',
    meaning:
      'a `GET /api/backup` whose client leaves the data unread this long is cut off (a slow reader holds no lock; see [backups](docs/operations.md#backups-and-restore))',
  },
  DATA_FSYNC: {
    group: 'Storage',
    default: 'true',
    meaning:
      'the embedded database syncs every commit to the disk before acknowledging it; `false` is faster and loses the last commits to a power cut, or may damage the folder (see [operations](docs/operations.md#durability-what-a-power-cut-can-cost))',
  },
  API_TOKEN: {
    group: 'Access, logs and limits',
    default: '',
    meaning:
      'bearer token required by every write, every ledger, portfolio, metering and solar read, `/metrics` and the details of `/health`; without it the process only starts on a loopback `HOST` and runs in the open mode (see [hardening](docs/hardening.md))',
  },
  LOG_LEVEL: {
    group: 'Access, logs and limits',
    default: 'info',
    meaning: 'pino level',
  },
  LOG_FORMAT: {
    group: 'Access, logs and limits',
    default: '',
    meaning:
      '`pretty`: one readable line per event (pino-pretty); `json`: one JSON object a line, for journald and log shippers; empty: pretty on a terminal, else JSON (see [operations](docs/operations.md#logs))',
  },
  PROVIDER_TIMEOUT_MS: {
    group: 'Access, logs and limits',
    default: '10000',
    meaning: 'timeout of each outbound call attempt',
  },
  PROVIDER_MAX_BYTES: {
    group: 'Access, logs and limits',
    default: '16777216',
    meaning:
      'largest provider answer body (16 MiB) or WebSocket message; a larger one is cut off and fails the call as a provider failure',
  },
  BODY_LIMIT_BYTES: {
    group: 'Access, logs and limits',
    default: '1048576',
    meaning: 'largest request body; a larger one is 413',
  },
  REQUEST_TIMEOUT_MS: {
    group: 'Access, logs and limits',
    default: '30000',
    meaning:
      'time to answer a request, with a body or without; past it the answer is 503 and `request.deadline.signal` cancels the work',
  },
  WRITE_RATE_LIMIT: {
    group: 'Access, logs and limits',
    default: '120',
    meaning:
      'write requests (POST, PUT, PATCH, DELETE) per minute per client address; past it 429 with `Retry-After`',
  },
  AUTH_FAILURE_LIMIT: {
    group: 'Access, logs and limits',
    default: '10',
    meaning:
      'wrong-token attempts per minute per client address; past it every request of that address that needs the token is 429 with `Retry-After` until its minute is over',
  },
  CORS_ORIGINS: {
    group: 'Access, logs and limits',
    default: '',
    meaning:
      'comma-separated origins allowed to call the API from a browser; empty means none. Without `API_TOKEN` these origins may also write',
  },
  TRUST_PROXY: {
    group: 'Access, logs and limits',
    default: 'false',
    meaning:
      "behind a reverse proxy: whose `X-Forwarded-For` to believe so that the limits see the client's address: `false` (none), `true` (any: only when nothing else can reach the port), a hop count, or the proxies' addresses and CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `loopback`)",
  },
  SPOT_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning: 'live BTC price connection (Kraken WebSocket v2)',
  },
  OHLC_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning: 'candle pollers (Kraken REST)',
  },
  QUOTE_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning: 'broker quote poller and quote calls (Strike)',
  },
  RATES_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning: 'currency-rate poller (Frankfurter, ECB rates)',
  },
  PRICE_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning: 'day-ahead price fetcher (Energi Data Service)',
  },
  CO2_FEED_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning:
      "the grid's CO₂ intensity, realized and forecast, fetched every 15 minutes (Energi Data Service, on one process)",
  },
  METERING_SYNC_ENABLED: {
    group: 'Feeds',
    default: 'true',
    meaning:
      'the hourly check that syncs every past metering day not yet stored, up to the day before yesterday, at most 31 a run (on one process, with a metering token)',
  },
  QUOTE_TOTAL_EUR: {
    group: 'Bitcoin',
    default: '55',
    meaning: 'the EUR total a quote is made for',
  },
  STREAM_MAX_CLIENTS: {
    group: 'Bitcoin',
    default: '1000',
    meaning:
      'price and quote streams (WebSocket and SSE) open at once; past it a new one is refused with 503 and `Retry-After`',
  },
  STREAM_MAX_PER_ADDRESS: {
    group: 'Bitcoin',
    default: '20',
    meaning:
      'the same per client address (the address `TRUST_PROXY` makes out); past it 429 and `Retry-After`',
  },
  QUOTE_RETENTION_DAYS: {
    group: 'Bitcoin',
    default: '7',
    meaning: 'quotes kept whole this many days; older ones are folded into hourly rows, kept for good',
  },
  MINUTE_CANDLE_RETENTION_DAYS: {
    group: 'Bitcoin',
    default: '30',
    meaning: '1-minute candles kept this many days (hourly and daily ones for good)',
  },
  IDEMPOTENCY_KEY_HOURS: {
    group: 'Bitcoin',
    default: '24',
    meaning: 'idempotency keys (and the answers they replay) kept this many hours',
  },
  STRIKE_API_KEY: {
    group: 'Bitcoin',
    default: '',
    meaning: 'broker API key; without it the quote feed logs once that it is off',
  },
  ESPLORA_URL: {
    group: 'Bitcoin',
    default: '',
    meaning:
      "base of the household's own Esplora HTTP API for the watch-only wallets (mempool's `/api` on Umbrel or Start9, electrs' HTTP, esplora), e.g. `http://umbrel.local:3006/api`; empty is off and no one is asked. An Esplora learns every address it is asked about: use your own (see [the chain](docs/chain.md))",
  },
  CHAIN_GAP_LIMIT: {
    group: 'Bitcoin',
    default: '20',
    meaning:
      "a watched wallet's receive and change chains are scanned until this many unused addresses in a row",
  },
  CHAIN_NETWORK: {
    group: 'Bitcoin',
    default: 'mainnet',
    meaning:
      'the network of the watch keys and of `ESPLORA_URL`: `mainnet`, `testnet`, `signet` or `regtest` (tpub, upub and vpub keys on the last three)',
  },
  METERING_TOKEN: {
    group: 'Electricity',
    default: '',
    meaning: 'Eloverblik refresh token; when empty it is read from the file `.token`',
  },
  GRID_COMPANY_GLN: {
    group: 'Electricity',
    default: '',
    meaning:
      "without a metering token: the grid company whose household tariff applies ([the list](docs/power.md#grid-companies)); unset means not configured, said by `/health`, `/api/consumer-prices` and the page, and no grid tariff is priced. With a metering token the meter's own charges apply",
  },
  GRID_TARIFF_NOTES: {
    group: 'Electricity',
    default: '',
    meaning:
      "notes (DatahubPricelist `Note`) of that company's household tariff, separated by `;`, overriding the shipped list (a company not in the list needs them)",
  },
  ENERGINET_GLN: {
    group: 'Electricity',
    default: '5790000432752',
    meaning:
      "Energinet's GLN in DatahubPricelist: transmission (40000) and system (41000) tariffs, electricity tax (EA-001)",
  },
  PRICE_AREA: {
    group: 'Electricity',
    default: 'DK1',
    meaning:
      "the household's price area (DK1 or DK2): default of `/api/consumer-prices` and `/api/cheapest`, area of `/api/costs`",
  },
  SUPPLIER_MARKUP_DKK_KWH: {
    group: 'Electricity',
    default: '0',
    meaning: "the electricity supplier's markup, DKK/kWh excl. VAT, exact (up to 6 decimals)",
  },
  SUPPLIER_SUBSCRIPTION_DKK_MONTH: {
    group: 'Electricity',
    default: '0',
    meaning:
      "the supplier's own subscription, DKK per month excl. VAT, exact (up to 4 decimals): a line of `/api/bill`",
  },
  VAT_RATE: {
    group: 'Electricity',
    default: '0.25',
    meaning: 'VAT on every part of the consumer price (0 to 1, up to 4 decimals)',
  },
  SPOT_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'wss://ws.kraken.com/v2',
    meaning: 'Kraken WebSocket v2 (live BTC price)',
  },
  OHLC_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'https://api.kraken.com',
    meaning: 'Kraken REST (candles)',
  },
  QUOTE_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'https://api.strike.me',
    meaning: 'Strike (broker quotes)',
  },
  RATES_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'https://api.frankfurter.dev',
    meaning: 'Frankfurter (ECB reference rates)',
  },
  PRICE_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'https://api.energidataservice.dk',
    meaning: 'Energi Data Service (day-ahead prices, tariffs)',
  },
  METERING_FEED_URL: {
    group: 'Provider base URLs: tests, proxies and mirrors can stand in',
    default: 'https://api.eloverblik.dk',
    meaning: 'Eloverblik (metering data, charges)',
  },
  MQTT_URL: {
    group: 'Home Assistant over MQTT',
    default: '',
    meaning:
      'MQTT broker for Home Assistant, `mqtt://user:password@host:1883` or `mqtts://…`; empty means off (see [Home Assistant](docs/homeassistant.md)). The credentials never appear in logs or `/health`',
  },
  MQTT_TOPIC_PREFIX: {
    group: 'Home Assistant over MQTT',
    default: 'satwatt',
    meaning: 'topics of the states (`<prefix>/<entity>/state`) and of the availability (`<prefix>/status`)',
  },
  MQTT_DISCOVERY_PREFIX: {
    group: 'Home Assistant over MQTT',
    default: 'homeassistant',
    meaning:
      "Home Assistant's discovery prefix (its birth message comes on `<prefix>/status`); must differ from `MQTT_TOPIC_PREFIX`",
  },
  MQTT_PRIVATE: {
    group: 'Home Assistant over MQTT',
    default: 'false',
    meaning:
      "also publish the household's own figures over MQTT: portfolio value, sats and unrealized result, electricity costs of the last day metered whole and of this month through it",
  },
  HA_URL: {
    group: 'Home Assistant statistics',
    default: '',
    meaning:
      "Home Assistant's base URL, `http://homeassistant.local:8123` or `https://…`: the metered consumption, production and their cost are written to it as long-term statistics for its Energy dashboard (see [Home Assistant](docs/homeassistant.md#energy-dashboard-statistics)); empty means off",
  },
  HA_TOKEN: {
    group: 'Home Assistant statistics',
    default: '',
    meaning:
      'a long-lived access token of a Home Assistant administrator, needed with `HA_URL`; it never appears in logs or `/health`',
  },
} as const satisfies Record<string, Variable>;

export type VarName = keyof typeof VARIABLES;

/** Every variable's default. */
export const DEFAULTS = Object.fromEntries(
  Object.entries(VARIABLES).map(([name, v]) => [name, v.default]),
) as { readonly [K in VarName]: (typeof VARIABLES)[K]['default'] };
