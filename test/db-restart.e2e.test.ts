import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKraken } from './fakes/kraken-ws.js';
import { waitFor } from './fakes/stream-clients.js';
import { TEST_DATABASE_URL, freshDatabase, type TestDatabase } from './support/db.js';
import { startSpotNode, stopSpotNodes, type SpotNode } from './support/spot-nodes.js';

if (!TEST_DATABASE_URL)
  console.log(
    'database restart test skipped: TEST_DATABASE_URL is unset (it needs a PostgreSQL server to drop connections)',
  );

interface Feed {
  ok: boolean;
  connected: boolean | null;
  reconnects: number;
  last_error: string | null;
}

async function feeds(port: number): Promise<Record<string, Feed>> {
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  return ((await res.json()) as { feeds: Record<string, Feed> }).feeds;
}

type StartedNode = Awaited<ReturnType<typeof startSpotNode>>;

describe.skipIf(!TEST_DATABASE_URL)('a database that drops every connection', () => {
  let db: TestDatabase;
  let kraken: FakeKraken;
  const started: SpotNode[] = [];
  const nodes: StartedNode[] = [];

  beforeAll(async () => {
    db = await freshDatabase();
    kraken = await FakeKraken.start({ heartbeatMs: 200 });
    for (let i = 0; i < 2; i++) nodes.push(await startSpotNode(started, db.url!, kraken.url));
  }, 150_000);

  afterAll(async () => {
    await stopSpotNodes(started);
    await kraken?.close();
    await db?.close();
  });

  /** The process whose spot feed is connected (the leader), once exactly one is. */
  async function roles(): Promise<{ leader: StartedNode; follower: StartedNode }> {
    return waitFor(
      async () => {
        const connected = await Promise.all(nodes.map(async (n) => (await feeds(n.port)).spot?.connected));
        if (connected.filter(Boolean).length !== 1 || kraken.ws.clients.size !== 1) return null;
        const i = connected.indexOf(true);
        return { leader: nodes[i]!, follower: nodes[1 - i]! };
      },
      30_000,
      'one process polling the spot feed',
    );
  }

  it('no process dies; the listeners come back and a new tick reaches the follower within 5 s', async () => {
    await roles();
    kraken.tick('BTC/USD', 70_001);
    for (const n of nodes) await n.stream.until((m) => m.btc_usd === 70_001, 20_000);
    for (const n of nodes) expect((await feeds(n.port)).notifications).toMatchObject({ connected: true });

    const admin = new pg.Client({ connectionString: db.url! });
    await admin.connect();
    const killed = await admin.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`,
    );
    await admin.end();
    // each process had its pool, its LISTEN connection and its lock connection
    expect(killed.rows[0]!.n).toBeGreaterThanOrEqual(4);

    // /health showed the notification channel down, and it is back
    for (const n of nodes)
      await waitFor(
        async () => {
          const f = (await feeds(n.port)).notifications;
          return f?.connected === true && f.reconnects >= 1 && f.last_error !== null;
        },
        20_000,
        `the notification connection of process ${n.port} to come back`,
      );
    const { follower } = await roles();
    for (const n of nodes) expect(n.proc.child.exitCode).toBeNull();

    const from = follower.stream.messages.length;
    const tickedAt = Date.now();
    kraken.tick('BTC/USD', 70_002);
    await follower.stream.until((m) => m.btc_usd === 70_002, 5_000, from);
    expect(Date.now() - tickedAt).toBeLessThan(5_000);
    for (const n of nodes) expect(n.proc.child.exitCode).toBeNull();
    const health = await (await fetch(`http://127.0.0.1:${follower.port}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', database: { ok: true } });
  }, 120_000);
});
