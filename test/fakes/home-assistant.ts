import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { frameText } from '../../src/providers/home-assistant.js';
import {
  ENTITY_ID,
  HomeAssistantError,
  importSchema,
  Invalid,
  isObject,
  parseIso,
  STATISTIC_ID,
  UNIT_CLASSES,
} from './home-assistant-schema.js';

/**
 * Home Assistant's WebSocket API on 127.0.0.1, as its core answers it (homeassistant/components/
 * websocket_api: auth.py, connection.py, const.py; recorder/websocket_api.py and statistics.py):
 *
 * - on connect `auth_required` with `ha_version`; the client's `auth` must be exactly
 *   `{type: 'auth', access_token}` (else `auth_invalid` "Auth message incorrectly formatted");
 *   an unknown token gets `auth_invalid` "Invalid access token or password"; either closes the socket;
 * - then commands: `id` a whole number ≥ 0 and `type` a string (else `invalid_format`), each id
 *   greater than the last (else `id_reuse`), a known type (else `unknown_command`), answered by
 *   `{id, type: 'result', success, result | error: {code, message}}`;
 * - `recorder/import_statistics`: the command's schema (voluptuous: every key required or optional
 *   as listed, no other key anywhere, types strict) else `invalid_format`; an administrator's token
 *   (else `unauthorized`); then what statistics.py refuses as `home_assistant_error`: a statistic id
 *   that is no `domain:object_id` (lower-case letters, digits and single inner `_`), a `source`
 *   other than the id's domain (`recorder` for an entity id), a `unit_class` unknown or not
 *   matching the unit, a `start` without a time zone or not at the top of an hour.
 *
 * The schema is that of the newest core: `has_mean` optional (deprecated), and since 2026.11, which
 * this fake is by default, `mean_type` (0, 1 or 2) and `unit_class` required. An accepted import
 * overwrites the statistic's hours, as the recorder does.
 */

export interface HaStat {
  state: number | undefined;
  sum: number | undefined;
}

export interface HaError {
  code: string;
  message: string;
}

export class FakeHomeAssistant {
  haVersion = '2026.11.0';
  /** Tokens it knows, and whether each is an administrator's. */
  readonly tokens = new Map<string, { admin: boolean }>([['fake-ha-admin-token', { admin: true }]]);
  /** 2026.11's schema: `mean_type` and `unit_class` required. */
  strict = true;
  /** Accepts connections and never says anything. */
  silent = false;
  /** Cuts the connection, without answering, when the import with this number (1, 2, …, over every connection) arrives. */
  dropAtImport: number | null = null;
  readonly statistics = new Map<string, Map<number, HaStat>>();
  readonly metadata = new Map<string, Record<string, unknown>>();
  /** Every message received after authentication, in order. */
  readonly commands: Record<string, unknown>[] = [];
  /** Every error result sent. */
  readonly errors: HaError[] = [];
  connections = 0;
  authAttempts = 0;
  authRefused = 0;
  /** Import commands that arrived (accepted or not). */
  imports = 0;

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (socket) => this.serve(socket));
  }

  static async start(opts: { port?: number } = {}): Promise<FakeHomeAssistant> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: opts.port ?? 0, path: '/api/websocket' });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    return new FakeHomeAssistant(wss);
  }

  get port(): number {
    return (this.wss.address() as AddressInfo).port;
  }

  /** HA_URL */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get token(): string {
    return [...this.tokens].find(([, t]) => t.admin)![0];
  }

  /** A statistic's hours in order: [start ISO, state, sum]. */
  hours(statisticId: string): { start: string; state: number | undefined; sum: number | undefined }[] {
    return [...(this.statistics.get(statisticId) ?? new Map<number, HaStat>())]
      .sort(([a], [b]) => a - b)
      .map(([t, s]) => ({ start: new Date(t).toISOString(), ...s }));
  }

  /** Cuts every connection without a close frame. */
  dropAll(): void {
    for (const c of this.wss.clients) c.terminate();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private serve(socket: WebSocket): void {
    this.connections++;
    if (this.silent) return;
    let user: { admin: boolean } | null = null;
    let lastId = 0;
    const send = (m: unknown) => socket.send(JSON.stringify(m));
    const error = (id: unknown, code: string, message: string) => {
      this.errors.push({ code, message });
      send({ id, type: 'result', success: false, error: { code, message } });
    };
    send({ type: 'auth_required', ha_version: this.haVersion });
    socket.on('message', (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse(frameText(data));
      } catch {
        return socket.close(1003);
      }
      if (user === null) {
        this.authAttempts++;
        const token =
          isObject(msg) &&
          msg.type === 'auth' &&
          typeof msg.access_token === 'string' &&
          Object.keys(msg).every((k) => k === 'type' || k === 'access_token')
            ? msg.access_token
            : null;
        const ok = token !== null;
        const known = token === null ? undefined : this.tokens.get(token);
        if (!known) {
          this.authRefused++;
          send({
            type: 'auth_invalid',
            message: ok
              ? 'Invalid access token or password'
              : 'Auth message incorrectly formatted: expected auth',
          });
          socket.close();
          return;
        }
        user = known;
        send({ type: 'auth_ok', ha_version: this.haVersion });
        return;
      }
      if (!isObject(msg)) return error(null, 'invalid_format', 'Message incorrectly formatted.');
      this.commands.push(msg);
      const id = msg.id;
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || typeof msg.type !== 'string')
        return error(id ?? null, 'invalid_format', 'Message incorrectly formatted.');
      if (id <= lastId) return error(id, 'id_reuse', 'Identifier values have to increase.');
      lastId = id;
      if (msg.type === 'ping') return send({ id, type: 'pong' });
      if (msg.type !== 'recorder/import_statistics') return error(id, 'unknown_command', 'Unknown command.');
      this.imports++;
      if (this.dropAtImport !== null && this.imports === this.dropAtImport) return socket.terminate();
      try {
        importSchema(this.strict)(msg, []);
        if (!user.admin) return error(id, 'unauthorized', 'Unauthorized');
        this.importStatistics(
          msg.metadata as Record<string, unknown>,
          msg.stats as Record<string, unknown>[],
        );
      } catch (e) {
        if (e instanceof Invalid) return error(id, 'invalid_format', e.message);
        if (e instanceof HomeAssistantError) return error(id, 'home_assistant_error', e.message);
        throw e;
      }
      send({ id, type: 'result', success: true, result: null });
    });
  }

  /** statistics.py: async_import_statistics or async_add_external_statistics, then _async_import_statistics. */
  private importStatistics(metadata: Record<string, unknown>, stats: Record<string, unknown>[]): void {
    const id = metadata.statistic_id as string;
    const source = metadata.source as string;
    if (ENTITY_ID.test(id)) {
      if (!source || source !== 'recorder') throw new HomeAssistantError('Invalid source');
    } else {
      if (!STATISTIC_ID.test(id)) throw new HomeAssistantError('Invalid statistic_id');
      if (!source || source !== id.split(':')[0]) throw new HomeAssistantError('Invalid source');
    }
    const unitClass = metadata.unit_class as string | null | undefined;
    if (unitClass !== null && unitClass !== undefined) {
      const units = UNIT_CLASSES[unitClass];
      if (!units) throw new HomeAssistantError(`Unsupported unit_class: '${unitClass}'`);
      if (!units.includes(metadata.unit_of_measurement as string))
        throw new HomeAssistantError(
          `Unsupported unit_of_measurement '${String(metadata.unit_of_measurement)}' for unit_class '${unitClass}'`,
        );
    }
    const rows = stats.map((s) => {
      const t = parseIso(s.start as string)!;
      if (t.naive) throw new HomeAssistantError('Naive timestamp: no or invalid timezone info provided');
      if (t.minute !== 0 || t.second !== 0 || t.micro !== 0)
        throw new HomeAssistantError(
          'Invalid timestamp: timestamps must be from the top of the hour (minutes and seconds = 0)',
        );
      return { t: t.utcMs, state: s.state as number | undefined, sum: s.sum as number | undefined };
    });
    this.metadata.set(id, metadata);
    const own = this.statistics.get(id) ?? new Map<number, HaStat>();
    for (const r of rows) own.set(r.t, { state: r.state, sum: r.sum });
    this.statistics.set(id, own);
  }
}
