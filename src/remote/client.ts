import { isIP } from 'node:net';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Config } from '../config.js';
import type { CommandOutput, Progress } from '../shared/command-output.js';
import type { JobLine } from './lines.js';
import { serviceAddressOf, type ServiceAddress } from '../db/data-dir-lock.js';

/** The satwatt that holds the embedded database, reached over its HTTP API. */
export interface RunningService {
  /** Where it listens, e.g. http://127.0.0.1:3030. */
  readonly url: string;
  /** POSTs to a job route, shows its lines through `output` as they come, and returns the job's exit code. */
  runJob(verb: string, path: string, request: JobRequest, output: CommandOutput): Promise<number>;
  /** GETs a private download; the answer's body, or a refusal as an error with one clear line. */
  download(verb: string, path: string): Promise<Response>;
}

export interface JobRequest {
  query?: Record<string, string>;
  body?: { type: string; data: Buffer };
}

/** A failure to reach or be served by the running service, with the line to show. */
export class RemoteError extends Error {
  constructor(
    message: string,
    /** The exit code to end with: 2 when the request itself was refused, 1 otherwise. */
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A listen address as a client reaches it: a wildcard address means this machine's loopback. */
export function serviceUrl(address: Pick<ServiceAddress, 'host' | 'port'>): string {
  let host = address.host;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${address.port}`;
}

/**
 * The running service at the address it recorded in DATA_DIR, authenticated with this
 * configuration's API_TOKEN when it needs one.
 */
export function runningService(
  address: Pick<ServiceAddress, 'host' | 'port' | 'token'>,
  config: Pick<Config, 'apiToken' | 'services'>,
): RunningService {
  const url = serviceUrl(address);
  const headers: Record<string, string> =
    address.token && config.apiToken ? { authorization: `Bearer ${config.apiToken}` } : {};

  const request = async (verb: string, method: string, path: string, init: RequestInit = {}) => {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, { ...init, method, headers: { ...headers, ...init.headers } });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new RemoteError(
        `${verb}: no satwatt answers at ${url} (${cause?.code ?? cause?.message ?? (e as Error).message}) ` +
          'to take the work, though the process that holds the database said it serves there',
        1,
      );
    }
    if (res.ok) return res;
    throw new RemoteError(await refusal(verb, path, res, config.services), res.status < 500 ? 2 : 1);
  };

  return {
    url,
    download: (verb, path) => request(verb, 'GET', path),
    async runJob(verb, path, job, output) {
      const query = new URLSearchParams(job.query ?? {}).toString();
      let res: Response;
      try {
        res = await request(verb, 'POST', query ? `${path}?${query}` : path, {
          ...(job.body
            ? { body: new Uint8Array(job.body.data), headers: { 'content-type': job.body.type } }
            : {}),
        });
      } catch (e) {
        if (!(e instanceof RemoteError)) throw e;
        output.err(e.message);
        return e.exitCode;
      }
      return replay(verb, res, output);
    },
  };
}

/** The line to show for a refused request: the problem's detail, and what to do about it. */
async function refusal(
  verb: string,
  path: string,
  res: Response,
  services: readonly string[],
): Promise<string> {
  const text = await res.text().catch(() => '');
  let detail = text.slice(0, 300);
  try {
    detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
  } catch {
    // not problem+json: the text as it came
  }
  const hint =
    res.status === 401
      ? ' (API_TOKEN here must be the running service’s)'
      : res.status === 404
        ? ` (the running service does not serve ${path}: does it run the service this needs? SERVICES here is ${services.join(',')})`
        : '';
  return `${verb}: the running service answered ${res.status}: ${detail}${hint}`;
}

/** Draws the job's lines as they arrive; the exit code it ends with. */
async function replay(verb: string, res: Response, output: CommandOutput): Promise<number> {
  const bars = new Map<number, Progress>();
  const lines = createInterface({
    input: Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
    crlfDelay: Infinity,
  });
  try {
    for await (const text of lines) {
      if (text.trim() === '') continue;
      const line = JSON.parse(text) as JobLine;
      if (line.exit !== undefined) return line.exit;
      if (line.out !== undefined) output.out(line.out);
      if (line.err !== undefined) output.err(line.err);
      if (line.bar === undefined) continue;
      if (line.start) bars.set(line.bar, output.progress(line.start));
      const bar = bars.get(line.bar);
      if (!bar) continue;
      if (line.total !== undefined) bar.setTotal(line.total);
      if (line.value !== undefined) bar.update(line.value, line.payload);
      if (line.delta !== undefined) bar.increment(line.delta, line.payload);
      if (line.stop) bar.stop();
    }
  } catch (e) {
    output.err(`${verb}: the answer of the running service broke off: ${(e as Error).message}`);
    return 1;
  } finally {
    for (const bar of bars.values()) bar.stop();
  }
  output.err(`${verb}: the running service ended the answer before the work finished; see its log`);
  return 1;
}

/**
 * The service that holds DATA_DIR, from the address it recorded there once it listened; a
 * RemoteError with the line to show when the holder serves nothing (a command, a service
 * starting or stopping) or needs a token this configuration lacks.
 */
export async function findRunningService(
  verb: string,
  config: Pick<Config, 'dataDir' | 'apiToken' | 'services'>,
  holder: number,
): Promise<RunningService> {
  const address = await serviceAddressOf(config.dataDir, holder);
  if (!address)
    throw new RemoteError(
      `${verb}: the database in ${config.dataDir} is in use by process ${holder}, which serves no HTTP ` +
        '(another command, or a satwatt starting or stopping); try again once it has finished or is serving',
      1,
    );
  if (address.token && !config.apiToken)
    throw new RemoteError(
      `${verb}: the satwatt at ${serviceUrl(address)} (process ${holder}) holds the database in ${config.dataDir} ` +
        'and needs its API_TOKEN: set the same API_TOKEN here (in the environment or .env)',
      2,
    );
  return runningService(address, config);
}

/**
 * Runs a command in the running service that holds the embedded database, found from DATA_DIR,
 * saying where first on stderr; what follows is the command's own output.
 */
export async function forwardCommand(
  command: { name: string; forward?: (args: string[], service: RunningService) => Promise<number> },
  args: string[],
  config: Config,
  holder: { pid: number },
): Promise<number> {
  let service: RunningService;
  try {
    service = await findRunningService(command.name, config, holder.pid);
  } catch (e) {
    if (!(e instanceof RemoteError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return e.exitCode;
  }
  process.stderr.write(`${sentTo(command.name, config.dataDir, holder.pid, service.url)}\n`);
  return command.forward!(args, service);
}

/** The line that says where a command's work went. */
export function sentTo(verb: string, dataDir: string, pid: number, url: string): string {
  return `${verb}: the database in ${dataDir} is held by the satwatt at ${url} (process ${pid}); sending the work there`;
}
