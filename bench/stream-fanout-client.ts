import WebSocket from 'ws';

/**
 * The client side of the stream-fanout benchmark, in its own process so that the clients'
 * work does not share an event loop with the service. Driven over IPC by the benchmark:
 * connect N sockets, then report each message's arrival time by its sequence number.
 */
type Command = { cmd: 'connect'; url: string; n: number } | { cmd: 'collect' } | { cmd: 'close' };

const now = () => performance.timeOrigin + performance.now();
let sockets: WebSocket[] = [];
let seqs: number[] = [];
let times: number[] = [];

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('message', (data) => {
      const t = now();
      const m = JSON.parse((data as Buffer).toString()) as { btc_usd: number };
      seqs.push(m.btc_usd - 60_000);
      times.push(t);
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const send = (m: unknown) => process.send?.(m);

process.on('message', (raw) => {
  const c = raw as Command;
  void (async () => {
    if (c.cmd === 'connect') {
      for (let i = 0; i < c.n; i += 250) {
        const batch = Math.min(250, c.n - i);
        sockets.push(...(await Promise.all(Array.from({ length: batch }, () => open(c.url)))));
      }
      send({ connected: sockets.length });
    } else if (c.cmd === 'collect') {
      send({ seqs, times });
      seqs = [];
      times = [];
    } else {
      for (const s of sockets) s.terminate();
      sockets = [];
      send({ closed: true });
    }
  })().catch((e: unknown) => send({ error: String(e) }));
});
