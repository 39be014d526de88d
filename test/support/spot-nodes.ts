import { wsClient, type StreamClient } from '../fakes/stream-clients.js';
import { FEEDS_OFF, freePort, runSatwatt, waitForHttp, type Proc } from './process.js';

/** A btc process on a PostgreSQL server, with a client of its price stream. */
export interface SpotNode {
  proc: Proc;
  port: number;
  stream?: StreamClient;
}

/**
 * Starts a btc process on the server database `databaseUrl` with only the spot feed on (from
 * `krakenUrl`), and opens a client of its price stream. The node joins `nodes` before it is
 * ready, so that stopSpotNodes stops it even when its start fails.
 */
export async function startSpotNode(
  nodes: SpotNode[],
  databaseUrl: string,
  krakenUrl: string,
): Promise<SpotNode & { stream: StreamClient }> {
  const port = await freePort();
  const proc = runSatwatt(['serve'], {
    ...FEEDS_OFF,
    DATABASE_URL: databaseUrl,
    SERVICES: 'btc',
    PORT: String(port),
    SPOT_FEED_ENABLED: 'true',
    SPOT_FEED_URL: krakenUrl,
    LOG_LEVEL: 'warn',
  });
  const node: SpotNode = { proc, port };
  nodes.push(node);
  await waitForHttp(`http://127.0.0.1:${port}/health`, 60_000);
  const stream = await wsClient(`ws://127.0.0.1:${port}/api/stream/price`);
  node.stream = stream;
  return { ...node, stream };
}

export async function stopSpotNodes(nodes: SpotNode[]): Promise<void> {
  for (const n of nodes) {
    n.stream?.close();
    if (n.proc.child.exitCode === null) n.proc.child.kill('SIGTERM');
    await n.proc.exited;
  }
}
