import path from 'node:path';
import {
  isAddressOrRange,
  isLoopback,
  parseJdbcUrl,
  parsePostgresUrl,
  PROXY_NAMES,
  type PgConnection,
} from './values.js';
import {
  flag,
  isFalse,
  items,
  literals,
  oneOf,
  section,
  text,
  variable,
  whole,
  type Builders,
} from './variable.js';

export const SERVICE_NAMES = ['btc', 'power'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const Connection = (t: Builders) =>
  t.Union([
    t.Unsafe<PgConnection>(
      t.Object({
        host: t.String(),
        port: t.Integer(),
        database: t.String(),
        user: t.Optional(t.String()),
        password: t.Optional(t.String()),
      }),
    ),
    t.Null(),
  ]);

const connection =
  (parse: (text: string) => PgConnection) =>
  (v: string, read: { refuse<T>(why: string, fallback: T): T }) => {
    if (v === '') return null;
    try {
      return parse(v);
    } catch (e) {
      return read.refuse((e as Error).message, null);
    }
  };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where the process listens, what it stores where, and what it lets clients do. */
export const SERVER = {
  ...section('Process', {
    PORT: whole({ default: '3030', meaning: 'HTTP port' }, 0, 65535),
    HOST: text({ default: '127.0.0.1', meaning: 'bind address' }),
    SERVICES: variable(
      { default: 'btc,power', meaning: 'which services this process runs' },
      (t) => t.Array(literals(t, SERVICE_NAMES), { minItems: 1 }),
      (v, read) => {
        const names = items(v, ',');
        if (names.length === 0 || names.some((s) => !(SERVICE_NAMES as readonly string[]).includes(s)))
          read.refuse(`expected a comma-separated list of ${SERVICE_NAMES.join(', ')}, got "${v}"`, 0);
        return [...new Set(names)] as ServiceName[];
      },
    ),
  }),
  ...section('Storage', {
    DATABASE_URL: variable(
      {
        default: '',
        meaning: '`postgres://user:password@host:port/database` of a PostgreSQL server',
        secret: true,
      },
      Connection,
      connection(parsePostgresUrl),
    ),
    JDBC_URL: variable(
      {
        default: '',
        meaning: 'the same in JDBC form, `jdbc:postgresql://host:port/db?user=…&password=…`',
        secret: true,
      },
      Connection,
      // DATABASE_URL wins: then this one is not read at all
      (v, read) => (read.text('DATABASE_URL') === '' ? connection(parseJdbcUrl)(v, read) : null),
    ),
    DATA_DIR: variable(
      { default: './data', meaning: 'folder of the embedded database, used when no URL is set' },
      (t) => t.String(),
      (v, read) => path.resolve(read.cwd, v),
    ),
    BACKUP_DIR: variable(
      {
        default: '',
        meaning:
          'a daily backup of the embedded database (04:07 Danish time, and a minute after a start when the newest is a day old) into this folder; empty is off. Not with `DATABASE_URL` (use `pg_dump`). See [backups](docs/operations.md#backups-and-restore)',
      },
      (t) => t.Union([t.String(), t.Null()]),
      (v, read) => {
        if (v === '') return null;
        if (read.value('DATABASE_URL') !== null || read.value('JDBC_URL') !== null)
          read.refuse(
            'the daily backup is of the embedded database; with DATABASE_URL or JDBC_URL back the server up with pg_dump (docs/operations.md, "Backups")',
            0,
          );
        return path.resolve(read.cwd, v);
      },
    ),
    BACKUP_KEEP: whole(
      { default: '7', meaning: 'daily backups kept in `BACKUP_DIR`; the oldest beyond it are removed' },
      1,
      10_000,
    ),
    BACKUP_STALL_MS: whole(
      {
        default: '60000',
        meaning:
          'a `GET /api/backup` whose client leaves the data unread this long is cut off (a slow reader holds no lock; see [backups](docs/operations.md#backups-and-restore))',
      },
      100,
      3_600_000,
    ),
    DATA_FSYNC: flag({
      default: 'true',
      meaning:
        'the embedded database syncs every commit to the disk before acknowledging it; `false` is faster and loses the last commits to a power cut, or may damage the folder (see [operations](docs/operations.md#durability-what-a-power-cut-can-cost))',
    }),
  }),
  ...section('Access, logs and limits', {
    API_TOKEN: variable(
      {
        default: '',
        meaning:
          'bearer token required by every write, every ledger, portfolio, metering and solar read, `/metrics` and the details of `/health`; without it the process only starts on a loopback `HOST` and runs in the open mode (see [hardening](docs/hardening.md))',
        secret: true,
      },
      (t) => t.Union([t.String({ minLength: 16 }), t.Null()]),
      (v, read) => {
        if (v !== '' && v.length < 16) read.refuse('must be at least 16 characters long', 0);
        const host = read.text('HOST');
        if (v === '' && !isLoopback(host))
          read.refuse(`required when HOST is not a loopback address (HOST is "${host}")`, 0);
        return v === '' ? null : v;
      },
    ),
    LOG_LEVEL: oneOf(
      { default: 'info', meaning: 'pino level' },
      LOG_LEVELS,
      `one of ${LOG_LEVELS.join(', ')}`,
    ),
    LOG_FORMAT: variable(
      {
        default: '',
        meaning:
          '`pretty`: one readable line per event (pino-pretty); `json`: one JSON object a line, for journald and log shippers; empty: pretty on a terminal, else JSON (see [operations](docs/operations.md#logs))',
      },
      (t) => t.Union([t.Literal('pretty'), t.Literal('json')]),
      (text, read) => {
        const v = text || (read.stdoutIsTty ? 'pretty' : 'json');
        return v === 'pretty' || v === 'json'
          ? v
          : read.refuse(`expected pretty or json, got "${v}"`, 'json');
      },
    ),
    PROVIDER_TIMEOUT_MS: whole(
      { default: '10000', meaning: 'timeout of each outbound call attempt' },
      100,
      300_000,
    ),
    PROVIDER_MAX_BYTES: whole(
      {
        default: '16777216',
        meaning:
          'largest provider answer body (16 MiB) or WebSocket message; a larger one is cut off and fails the call as a provider failure',
      },
      1024,
      1024 * 1024 * 1024,
    ),
    BODY_LIMIT_BYTES: whole(
      { default: '1048576', meaning: 'largest request body; a larger one is 413' },
      1024,
      100 * 1024 * 1024,
    ),
    REQUEST_TIMEOUT_MS: whole(
      {
        default: '30000',
        meaning:
          'time to answer a request, with a body or without; past it the answer is 503 and `request.deadline.signal` cancels the work',
      },
      1000,
      600_000,
    ),
    WRITE_RATE_LIMIT: whole(
      {
        default: '120',
        meaning:
          'write requests (POST, PUT, PATCH, DELETE) per minute per client address; past it 429 with `Retry-After`',
      },
      1,
      1_000_000,
    ),
    AUTH_FAILURE_LIMIT: whole(
      {
        default: '10',
        meaning:
          'wrong-token attempts per minute per client address; past it every request of that address that needs the token is 429 with `Retry-After` until its minute is over',
      },
      1,
      1_000_000,
    ),
    CORS_ORIGINS: variable(
      {
        default: '',
        meaning:
          'comma-separated origins allowed to call the API from a browser; empty means none. Without `API_TOKEN` these origins may also write',
      },
      (t) => t.Array(t.String()),
      (v, read) => {
        const list = items(v, ',');
        for (const o of list) {
          let origin: string | null = null;
          try {
            origin = new URL(o).origin;
          } catch {
            // refused below
          }
          if (origin !== o)
            read.refuse(`expected a comma-separated list of origins like https://example.com, got "${o}"`, 0);
        }
        return list;
      },
    ),
    TRUST_PROXY: variable(
      {
        default: 'false',
        meaning:
          "behind a reverse proxy: whose `X-Forwarded-For` to believe so that the limits see the client's address: `false` (none), `true` (any: only when nothing else can reach the port), a hop count, or the proxies' addresses and CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `loopback`)",
      },
      (t) => t.Union([t.Boolean(), t.Integer({ minimum: 0 }), t.Array(t.String())]),
      (v, read) => {
        if (isFalse(v)) return false;
        if (['true', 'yes', 'on'].includes(v.toLowerCase())) return true;
        if (/^\d{1,2}$/.test(v)) return Number(v);
        const list = items(v, ',');
        const bad = list.filter((p) => !PROXY_NAMES.includes(p) && !isAddressOrRange(p));
        if (bad.length > 0)
          return read.refuse(
            `expected false, true, a hop count, or addresses and CIDR ranges of proxies (or loopback, linklocal, uniquelocal), got "${bad.join(', ')}"`,
            false,
          );
        return list;
      },
    ),
  }),
};
