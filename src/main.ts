import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, startDatabase } from './db/connect.js';
import {
  DataDirLockedError,
  forgetServiceAddress,
  recordServiceAddress,
  serviceAddressOf,
} from './db/data-dir-lock.js';

/**
 * Only the config and the database layer are imported up front: `serve` starts opening the
 * database and loads the HTTP server and the features while it opens (module loading and
 * PGlite's start overlap), and the command-line verbs are loaded only when one is asked for.
 */
async function usage(): Promise<string> {
  const { COMMANDS } = await import('./commands.js');
  return [
    'usage: satwatt <command>',
    '  serve                 run the services (default)',
    '  migrate               apply database migrations and exit',
    ...COMMANDS.map((c) => `  ${c.usage}`),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [verb = 'serve', ...args] = argv;
  if (verb === '--help' || verb === 'help') {
    console.log(await usage());
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      for (const p of e.problems) console.error(`config error: ${p}`);
      return 2;
    }
    throw e;
  }
  if (verb === 'serve') return serve(config);
  if (verb === 'migrate') {
    const { migrate } = await import('./db/migrate.js');
    let database;
    try {
      database = await openDatabase({
        server: config.database,
        dataDir: config.dataDir,
        fsync: config.dataFsync,
      });
    } catch (e) {
      if (!(e instanceof DataDirLockedError)) throw e;
      console.error(
        await inUse(
          'migrate',
          config,
          e.pid,
          'the holder applies migrations (a satwatt, those it knows when it starts): restart it, or migrate once it has stopped',
        ),
      );
      return 2;
    }
    try {
      const applied = await migrate(database);
      console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await database.close();
    }
    return 0;
  }
  const [{ COMMANDS }, { createContext, createLogger }] = await Promise.all([
    import('./commands.js'),
    import('./runtime.js'),
  ]);
  const command = COMMANDS.find((c) => c.name === verb);
  if (!command) {
    console.error(`unknown command "${verb}"\n${await usage()}`);
    return 2;
  }
  if ('runWithConfig' in command) return command.runWithConfig(args, config);
  let opened: Awaited<ReturnType<typeof createContext>>;
  try {
    opened = await createContext(config, {
      log: await createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, config.logFormat),
    });
  } catch (e) {
    // the running service holds the embedded database: it does the work instead
    if (!(e instanceof DataDirLockedError)) throw e;
    if (!command.forward) {
      console.error(await inUse(verb, config, e.pid, 'run it once that process has stopped'));
      return 1;
    }
    const { forwardCommand } = await import('./remote/client.js');
    return forwardCommand(command, args, config, e);
  }
  const { ctx, close } = opened;
  try {
    return await command.run(args, ctx);
  } finally {
    await close();
  }
}

/** The line for a verb that cannot run while another process holds DATA_DIR: who holds it and where it serves. */
async function inUse(verb: string, config: Config, pid: number, why: string): Promise<string> {
  const { serviceUrl } = await import('./remote/client.js');
  const address = await serviceAddressOf(config.dataDir, pid);
  const holder = address
    ? `the satwatt at ${serviceUrl(address)} (process ${pid})`
    : `process ${pid}, which serves no HTTP (another command, or a satwatt starting or stopping)`;
  return `${verb}: the database in ${config.dataDir} is held by ${holder}; ${why}`;
}

/** A stop ends within this, whatever the service is doing; the runtime's phases end well before it. */
const STOP_LIMIT_MS = 4_500;

async function serve(config: Config): Promise<number> {
  // Signals are taken from the first moment. One that comes while the service is still starting
  // ends the start where it is (no further migration, no feed started) and closes the database.
  const stopping = new AbortController();
  let stopNow: (() => void) | null = null;
  const onSignal = (signal: string) => {
    if (stopping.signal.aborted) {
      console.error(`second ${signal}: exiting now`);
      process.exit(1);
    }
    stopping.abort(signal);
    // past the bound something did not hear the stop: say so and end anyway
    setTimeout(() => {
      console.error(`${signal}: not stopped within ${STOP_LIMIT_MS} ms; exiting`);
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    stopNow?.();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const signalled = () => (stopping.signal.aborted ? String(stopping.signal.reason) : null);

  const opening = startDatabase({
    server: config.database,
    dataDir: config.dataDir,
    fsync: config.dataFsync,
  });
  // handled below, after the import; this only keeps a fast failure from counting as unhandled
  opening.catch(() => {});
  const { createRuntime } = await import('./runtime.js').catch(async (e: unknown) => {
    await opening.then((d) => d.close()).catch(() => {});
    throw e;
  });
  let runtime: Awaited<ReturnType<typeof createRuntime>>;
  try {
    runtime = await createRuntime(config, { opening, signal: stopping.signal });
  } catch (e) {
    // a start given up for a signal has closed what it opened: that is a clean stop
    if (signalled()) return 0;
    if (!(e instanceof DataDirLockedError)) throw e;
    console.error(
      await inUse(
        'serve',
        config,
        e.pid,
        'only one process may open it: stop that one, or give this one another DATA_DIR',
      ),
    );
    return 1;
  }
  const { app, ctx } = runtime;
  let exitCode = 0;
  // an embedded database that cannot be opened again ends the process, for its service manager to start it anew
  ctx.database.watchState((change) => {
    if (change.state !== 'failed') return;
    exitCode = 1;
    onSignal('the database failed');
  });
  stopNow = () => {
    ctx.log.info(`${signalled()}: shutting down`);
    const started = performance.now();
    // a command from now on is told the service is stopping, not sent to it
    const forgotten = config.database ? Promise.resolve() : forgetServiceAddress(config.dataDir);
    Promise.all([forgotten, runtime.stop()]).then(
      () => {
        ctx.log.info({ ms: Math.round(performance.now() - started) }, 'stopped');
        process.exit(exitCode);
      },
      (e: unknown) => {
        ctx.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // the process ends through process.exit(), from stopNow or from main()
  const running = new Promise<number>(() => {});
  if (signalled()) {
    stopNow();
    return running;
  }
  try {
    await app.listen({ port: config.port, host: config.host });
    // as bound: PORT=0 takes a free one
    const { port } = app.server.address() as AddressInfo;
    if (!config.database) {
      // the commands beside it find it from DATA_DIR alone; never the token, only whether one is needed
      await recordServiceAddress(config.dataDir, {
        pid: process.pid,
        host: config.host,
        port,
        token: config.apiToken !== null,
      });
    }
    ctx.log.info(
      { services: config.services, database: config.database ? 'postgres' : config.dataDir },
      `satwatt listening on http://${config.host}:${port} (API reference at /docs)`,
    );
    await runtime.startFeeds();
  } catch (e) {
    // what a shutdown cut short is the shutdown's to report
    if (signalled()) return running;
    await runtime.stop().catch(() => {});
    throw e;
  }
  return running;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? `error: ${e.message}` : e);
    process.exit(1);
  },
);
