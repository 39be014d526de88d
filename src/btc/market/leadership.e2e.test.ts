import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKraken } from '../../../test/fakes/kraken-ws.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { TEST_DATABASE_URL, freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { startSpotNode, stopSpotNodes, type SpotNode } from '../../../test/support/spot-nodes.js';

if (!TEST_DATABASE_URL)
  console.log(
    'two-process leadership test skipped: TEST_DATABASE_URL is unset (it needs a PostgreSQL server)',
  );

async function spotConnected(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  const body = (await res.json()) as { feeds: { spot?: { connected: boolean | null } } };
  return body.feeds.spot?.connected === true;
}

type StartedNode = Awaited<ReturnType<typeof startSpotNode>>;

describe.skipIf(!TEST_DATABASE_URL)('two btc processes on one PostgreSQL database', () => {
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

  it('one polls, both stream; when the leader dies the other takes over within seconds', async () => {
    await waitFor(() => kraken.ws.clients.size === 1, 30_000, 'one spot connection');
    // over a few leadership retries there is never more than one poller connected
    let most = 0;
    for (let i = 0; i < 25; i++) {
      most = Math.max(most, kraken.ws.clients.size);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(most).toBe(1);

    kraken.tick('BTC/USD', 70_001);
    for (const n of nodes) await n.stream.until((m) => m.btc_usd === 70_001, 20_000);

    // /health says connected once the subscription is acknowledged: wait for that state
    const connected = await waitFor(
      async () => {
        const each = await Promise.all(nodes.map((n) => spotConnected(n.port)));
        return each.filter(Boolean).length === 1 && each;
      },
      20_000,
      'exactly one process reporting its spot connection',
    );
    const leader = nodes[connected.indexOf(true)]!;
    const follower = nodes[connected.indexOf(false)]!;

    leader.proc.child.kill('SIGKILL');
    await leader.proc.exited;
    const diedAt = Date.now();
    const connectionsBefore = kraken.ws.connections;
    await waitFor(
      () => kraken.ws.connections > connectionsBefore && kraken.ws.clients.size === 1,
      20_000,
      'a new poller',
    );
    // the follower retries the lock every 2 s; the rest is a loaded machine's slack
    expect(Date.now() - diedAt).toBeLessThan(15_000);
    // the follower holds the lock and Kraken sees its connection; its own /health follows
    await waitFor(() => spotConnected(follower.port), 20_000, 'the follower to report its spot connection');

    kraken.tick('BTC/USD', 70_002);
    await follower.stream.until((m) => m.btc_usd === 70_002, 20_000);
    await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${follower.port}/api/price/latest`);
        return ((await res.json()) as { btc_usd?: number }).btc_usd === 70_002;
      },
      10_000,
      'the new leader to store the price',
    );
  }, 120_000);
});
