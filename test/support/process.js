import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
export { ensureBuilt } from '../../scripts/build.mjs';
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Every outbound feed off: for processes and apps that must not poll anything on their own. */
export const FEEDS_OFF = {
    SPOT_FEED_ENABLED: 'false',
    OHLC_FEED_ENABLED: 'false',
    QUOTE_FEED_ENABLED: 'false',
    RATES_FEED_ENABLED: 'false',
    PRICE_FEED_ENABLED: 'false',
};
export async function freePort() {
    const srv = createServer();
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    const port = srv.address().port;
    await new Promise((r) => srv.close(() => r()));
    return port;
}
/** Runs satwatt as a process with only the given environment on top of PATH. */
export function runSatwatt(args, env, opts = {}) {
    const entry = opts.compiled
        ? [path.join(ROOT, 'scripts/start.mjs')]
        : ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
    const child = spawn(process.execPath, [...entry, ...args], {
        cwd: opts.cwd ?? ROOT,
        env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += d.toString()));
    child.stderr?.on('data', (d) => (out += d.toString()));
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => out, exited };
}
export async function waitForHttp(url, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let last;
    while (Date.now() < deadline) {
        try {
            const res = await fetch(url);
            if (res.ok)
                return res;
            last = res.status;
        }
        catch (e) {
            last = e;
        }
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${url} not ready after ${timeoutMs} ms: ${String(last)}`);
}
//# sourceMappingURL=process.js.map