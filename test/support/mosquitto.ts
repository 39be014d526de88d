import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { connect, type MqttClient } from 'mqtt';
import { waitFor } from '../fakes/stream-clients.js';
import { freePort } from './process.js';

export const MOSQUITTO = '/usr/sbin/mosquitto';

/**
 * A real Mosquitto broker of the test's own: a free port on 127.0.0.1, its own config file in a
 * temporary folder (never the machine's broker on 1883), no persistence, so a restart loses every
 * retained message as a broker that lost its disk would. With `users`, only they may connect.
 */
export class Mosquitto {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(opts: { users?: Record<string, string>; port?: number } = {}): Promise<Mosquitto> {
    const dir = mkdtempSync(path.join(tmpdir(), 'satwatt-mosquitto-'));
    const port = opts.port ?? (await freePort());
    const lines = [
      `listener ${port} 127.0.0.1`,
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      // as root it would switch to the mosquitto user, who may not read this folder
      `user ${userInfo().username}`,
    ];
    if (opts.users) {
      const file = path.join(dir, 'passwords');
      Object.entries(opts.users).forEach(([user, password], i) =>
        execFileSync('mosquitto_passwd', [...(i === 0 ? ['-c'] : []), '-b', file, user, password], {
          stdio: 'ignore',
        }),
      );
      lines.push('allow_anonymous false', `password_file ${file}`);
    } else lines.push('allow_anonymous true');
    writeFileSync(path.join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
    const broker = new Mosquitto(port, dir);
    await broker.run();
    return broker;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  /** Starts it again on the same port, empty. */
  async restart(): Promise<void> {
    await this.stop();
    await this.run();
  }

  /** Freezes the broker (SIGSTOP): its sockets stay open and nothing answers, a hung broker. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async run(): Promise<void> {
    const child = spawn(MOSQUITTO, ['-c', path.join(this.dir, 'mosquitto.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child = child;
    await waitFor(
      () =>
        child.exitCode === null &&
        new Promise<boolean>((resolve) => {
          const s = tcpConnect(this.port, '127.0.0.1', () => {
            s.destroy();
            resolve(true);
          });
          s.on('error', () => resolve(false));
        }),
      10_000,
      `mosquitto on port ${this.port} (${this.output.trim()})`,
    );
  }
}

/** A TCP server that accepts connections and never says a word: a broker that hangs. */
export async function hangingBroker(): Promise<{
  url: string;
  sockets: Set<Socket>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    // reads and drops what comes, so that it sees the client go
    s.resume();
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

export interface Heard {
  topic: string;
  payload: string;
  retain: boolean;
}

/**
 * An MQTT client that listens as Home Assistant does: subscribed to everything, it keeps the
 * last payload of each topic (retained ones arrive first, on subscribe) and every message in order.
 */
export class Listener {
  readonly heard: Heard[] = [];
  readonly last = new Map<string, string>();

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const m = { topic, payload: payload.toString(), retain: packet.retain };
      this.heard.push(m);
      this.last.set(topic, m.payload);
    });
  }

  static async connect(url: string, opts: { username?: string; password?: string } = {}): Promise<Listener> {
    const client = connect(url, { ...opts, reconnectPeriod: 500, connectTimeout: 5_000 });
    const listener = new Listener(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    await client.subscribeAsync('#', { qos: 1 });
    return listener;
  }

  /** The last payload of `topic` once `ok` holds for it. */
  until(topic: string, ok: (payload: string) => boolean = () => true, timeoutMs = 20_000): Promise<string> {
    return waitFor(
      () => {
        const p = this.last.get(topic);
        return p !== undefined && ok(p) ? p : undefined;
      },
      timeoutMs,
      `${topic} (last: ${this.last.get(topic) ?? 'nothing'})`,
    );
  }

  /** The retained discovery configs, by unique_id. */
  configs(discoveryPrefix = 'homeassistant'): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const [topic, payload] of this.last)
      if (topic.startsWith(`${discoveryPrefix}/`) && topic.endsWith('/config') && payload !== '') {
        const c = JSON.parse(payload) as Record<string, unknown>;
        out.set(String(c.unique_id), c);
      }
    return out;
  }

  /** Subscribes a second time: the broker sends what it retains now, as to a client that just came. */
  async retainedNow(timeoutMs = 1_000): Promise<Map<string, string>> {
    const fresh = await Listener.connect(
      (this.client.options.protocol ?? 'mqtt') + `://127.0.0.1:${this.client.options.port}`,
      { username: this.client.options.username, password: this.client.options.password?.toString() },
    );
    await new Promise((r) => setTimeout(r, timeoutMs));
    const retained = new Map(fresh.heard.filter((m) => m.retain).map((m) => [m.topic, m.payload]));
    await fresh.close();
    return retained;
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
