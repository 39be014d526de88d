import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEnergiDataService } from '../../test/fakes/energidataservice.js';
import { Listener, Mosquitto } from '../../test/support/mosquitto.js';
import {
  ensureBuilt,
  FEEDS_OFF,
  freePort,
  runSatwatt,
  waitForHttp,
  type Proc,
} from '../../test/support/process.js';

/**
 * satwatt as a process beside a real broker: a SIGKILL leaves the broker to say `offline` (the
 * last will, so every entity turns unavailable), a SIGTERM says it itself and exits 0, and the
 * broker's password shows in none of its output. From the sources, and compiled as `npm start`
 * runs it (the bundle loads MQTT.js in a chunk of its own).
 */
const USER = 'satwatt-e2e';
const PASSWORD = 'e2e-Secret-4711';

let broker: Mosquitto;
let eds: FakeEnergiDataService;
let dir: string;
let ha: Listener;

beforeAll(async () => {
  await ensureBuilt({ quiet: true });
  [broker, eds, dir] = await Promise.all([
    Mosquitto.start({ users: { [USER]: PASSWORD } }),
    FakeEnergiDataService.start(),
    mkdtemp(path.join(tmpdir(), 'satwatt-mqtt-e2e-')),
  ]);
  ha = await Listener.connect(broker.url, { username: USER, password: PASSWORD });
}, 180_000);

afterAll(async () => {
  await ha?.close();
  await Promise.all([broker?.close(), eds?.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function serve(opts: { compiled?: boolean } = {}): Promise<{ proc: Proc; base: string }> {
  const port = await freePort();
  const proc = runSatwatt(
    ['serve'],
    {
      ...FEEDS_OFF,
      PORT: String(port),
      DATA_DIR: dir,
      LOG_LEVEL: 'debug',
      PRICE_FEED_URL: eds.url,
      MQTT_URL: `mqtt://${USER}:${PASSWORD}@127.0.0.1:${broker.port}`,
    },
    opts,
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, 90_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
  });
  return { proc, base };
}

describe('satwatt as a process with MQTT on', () => {
  it('is marked offline by its last will when it is killed', async () => {
    const { proc } = await serve();
    await ha.until('satwatt/status', (p) => p === 'online', 30_000);
    await ha.until('satwatt/spot_price/state', (p) => p !== 'None', 30_000);
    const from = ha.heard.length;
    proc.child.kill('SIGKILL');
    await proc.exited;
    await ha.until('satwatt/status', (p) => p === 'offline', 15_000);
    expect(
      ha.heard
        .slice(from)
        .filter((m) => m.topic === 'satwatt/status')
        .map((m) => m.payload),
    ).toEqual(['offline']);
    // what any client finds retained now, read with Debian's own mosquitto_sub
    const { stdout } = await promisify(execFile)('mosquitto_sub', [
      ...['-h', '127.0.0.1', '-p', String(broker.port), '-u', USER, '-P', PASSWORD],
      ...['-t', 'satwatt/status', '-t', 'satwatt/spot_price/state', '-v', '-C', '2', '-W', '10'],
    ]);
    const retained = new Map(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    );
    expect(retained.get('satwatt/status')).toBe('offline');
    // the states stay for when it is back; only the availability changed
    expect(retained.get('satwatt/spot_price/state')).toMatch(/^-?\d/);
    expect(proc.output()).not.toContain(PASSWORD);
  });

  it('compiled, comes back online, and on SIGTERM says offline itself and exits 0', async () => {
    const { proc, base } = await serve({ compiled: true });
    await ha.until('satwatt/status', (p) => p === 'online', 30_000);
    const health = await (await fetch(`${base}/health`)).text();
    expect(health).toContain('"mqtt"');
    expect(health).not.toContain(PASSWORD);
    // at once, while its first states are still being read: every wait ends on the stop
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect((await ha.retainedNow()).get('satwatt/status')).toBe('offline');
    expect(proc.output()).not.toContain(PASSWORD);
  });
});
