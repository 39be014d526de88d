import { isIP } from 'node:net';

/** The values of configuration variables that need more than a pattern: addresses and database URLs. */

export interface PgConnection {
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
}

export const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

export function isAddressOrRange(text: string): boolean {
  const [address = '', bits, ...rest] = text.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  if (bits === undefined) return true;
  const max = isIP(address) === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

export function parsePostgresUrl(text: string): PgConnection {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`not a valid URL: "${redactUrl(text)}"`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw new Error(`expected postgres://host:port/database, got "${u.protocol}"`);
  return connectionFrom(u, u.searchParams.get('user'), u.searchParams.get('password'));
}

/** `jdbc:postgresql://host:port/db?user=…&password=…`, the form the original deployment used. */
export function parseJdbcUrl(text: string): PgConnection {
  if (!text.startsWith('jdbc:postgresql://'))
    throw new Error('expected jdbc:postgresql://host:port/database?user=…&password=…');
  let u: URL;
  try {
    u = new URL(text.slice('jdbc:'.length));
  } catch {
    throw new Error('expected jdbc:postgresql://host:port/database?user=…&password=…');
  }
  return connectionFrom(u, u.searchParams.get('user'), u.searchParams.get('password'));
}

function connectionFrom(u: URL, user: string | null, password: string | null): PgConnection {
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (u.hostname === '') throw new Error('the URL names no host');
  if (database === '') throw new Error('the URL names no database');
  const conn: PgConnection = { host: u.hostname, port: u.port === '' ? 5432 : Number(u.port), database };
  const name = u.username !== '' ? decodeURIComponent(u.username) : user;
  const pass = u.password !== '' ? decodeURIComponent(u.password) : password;
  if (name) conn.user = name;
  if (pass) conn.password = pass;
  return conn;
}

/** An MQTT broker: its URL without credentials (safe to show) and the credentials apart. */
export interface MqttBroker {
  url: string;
  username?: string;
  password?: string;
}

/** `mqtt://user:password@host:port` or `mqtts://…`; an error names the URL with its password hidden. */
export function parseMqttUrl(text: string): MqttBroker {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`not a valid URL: "${withoutCredentials(text)}"`);
  }
  if (u.protocol !== 'mqtt:' && u.protocol !== 'mqtts:')
    throw new Error(`expected mqtt://host:port or mqtts://host:port, got "${u.protocol}"`);
  if (u.hostname === '') throw new Error(`no host in "${withoutCredentials(text)}"`);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '')
    throw new Error(`expected only user, password, host and port, got "${withoutCredentials(text)}"`);
  const broker: MqttBroker = { url: `${u.protocol}//${u.host}` };
  try {
    if (u.username !== '') broker.username = decodeURIComponent(u.username);
    if (u.password !== '') broker.password = decodeURIComponent(u.password);
  } catch {
    throw new Error(`the user or password has a broken %-escape in "${withoutCredentials(text)}"`);
  }
  return broker;
}

/** Everything up to the last `@` of a URL hidden: a password may hold `@`, `/` or `:` unescaped. */
function withoutCredentials(text: string): string {
  return text.replace(/\/\/.*@/, '//***@');
}

function redactUrl(text: string): string {
  return text.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
