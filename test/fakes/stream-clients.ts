import WebSocket from 'ws';

/** Polls until `fn` gives a value (not undefined/false), or fails after the timeout. */
type Maybe<T> = T | undefined | false | null;

export async function waitFor<T>(
  fn: () => Maybe<T> | Promise<Maybe<T>>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface StreamClient {
  messages: unknown[];
  /** The first message (in arrival order, from `from` on) that satisfies `pred`. */
  until<T = Record<string, unknown>>(pred: (m: T) => boolean, timeoutMs?: number, from?: number): Promise<T>;
  close(): void;
}

function collector(messages: unknown[]): StreamClient['until'] {
  return (pred, timeoutMs, from = 0) =>
    waitFor(() => messages.slice(from).find((m) => pred(m as never)) as never, timeoutMs, 'a stream message');
}

export async function wsClient(url: string): Promise<StreamClient & { ws: WebSocket }> {
  const ws = new WebSocket(url);
  const messages: unknown[] = [];
  ws.on('message', (d) => messages.push(JSON.parse((d as Buffer).toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, until: collector(messages), close: () => ws.terminate() };
}

export async function sseClient(url: string): Promise<StreamClient & { contentType: string | null }> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  if (!res.body) throw new Error('no body');
  const messages: unknown[] = [];
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) messages.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    messages,
    contentType: res.headers.get('content-type'),
    until: collector(messages),
    close: () => abort.abort(),
  };
}
