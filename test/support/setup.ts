import net from 'node:net';

/**
 * Tests never reach the internet: a connection to anything but loopback throws at once,
 * naming the host, instead of hanging or silently succeeding on a developer's machine.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '::ffff:127.0.0.1', '']);
const originalConnect = net.Socket.prototype.connect;

function targetHost(args: unknown[]): string | null {
  const first = args[0];
  if (Array.isArray(first)) return targetHost(first);
  if (first && typeof first === 'object') {
    const o = first as { host?: string; path?: string };
    if (o.path) return null;
    return o.host ?? 'localhost';
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null;
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const host = targetHost(args);
  if (host !== null && !LOOPBACK.has(host) && !host.startsWith('127.')) {
    throw new Error(`test tried to reach ${host}: tests must use the fake providers on 127.0.0.1`);
  }
  return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
};
