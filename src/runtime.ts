import { pino, type Logger } from 'pino';
import { buildApp, type BuiltApp } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { startDatabase, type Database } from './db/connect.js';
import { loadMigrations, migrate } from './db/migrate.js';
import { JobRunner } from './jobs/job.js';
import { createLeaderships, type Leaderships } from './jobs/leadership.js';
import { HealthRegistry, logFeedChanges } from './shared/health.js';
import type { MqttOptions } from './mqtt/index.js';
import { SERVICES, type Services } from './services.js';
import { createProviderBudgets, type BudgetLimit, type ProviderName } from './providers/budget.js';
import { untilAborted } from './shared/abort.js';
import { systemClock, type Clock } from './shared/clock.js';
import { within } from './shared/deadline.js';

/**
 * The process's logger: one JSON object a line, or lines for people (LOG_FORMAT=pretty, the
 * default on a terminal) through pino-pretty in this thread, loaded only then. `destination`
 * receives the lines instead of stdout (tests).
 */
export async function createLogger(
  level: string,
  format: Config['logFormat'] = 'json',
  destination?: NodeJS.WritableStream,
): Promise<Logger> {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        '*.token',
        '*.apiToken',
        '*.password',
        'config.strikeApiKey',
        // a watch key (docs/chain.md) and the Esplora's URL, which may hold a password
        'watch',
        '*.watch',
        '*.esploraUrl',
      ],
      censor: '[redacted]',
    },
  };
  if (format === 'json') return destination ? pino(options, destination) : pino(options);
  const { default: pretty } = await import('pino-pretty');
  return pino(
    options,
    pretty({
      destination: destination ?? 1,
      colorize: !destination && process.stdout.isTTY === true,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    }),
  );
}

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** An open database owned by the caller; otherwise one is opened from the config and closed on close(). */
  database?: Database;
  /** Tests may narrow a provider's call budget; production uses the published limits (budget.ts). */
  budgetLimits?: Partial<Record<ProviderName, BudgetLimit>>;
  /** A database already being started from the config (owned, and closed on close(), like one started here). */
  opening?: Promise<Database>;
  /** A stop asked for while starting: the start gives up (no further migration, no feature started). */
  signal?: AbortSignal;
  /** Leaderships of the test's own (a lock it hands over); else advisory locks on a server, this process alone otherwise. */
  leadership?: Leaderships;
  /** How often the locks not held are tried again on a server (2 s). */
  leadershipIntervalMs?: number;
}

export interface OpenContext {
  ctx: AppContext;
  /** Aborts ctx.shutdown: sleeps end, provider calls are cancelled. */
  abort: () => void;
  /** Aborts, then closes the database this opened (see Database.close for `withinMs`); safe to call twice. */
  close: (opts?: { withinMs?: number }) => Promise<void>;
}

/** Opens the database and applies migrations: everything a command needs, and no HTTP server. */
export async function createContext(config: Config, opts: ContextOptions = {}): Promise<OpenContext> {
  const { migrated, ...open } = await beginContext(config, opts);
  await migrated.catch(async (e: unknown) => {
    await open.close();
    throw e;
  });
  return open;
}

/**
 * The context at once, with the database still opening and its migrations to follow
 * (`migrated`): what needs only the context (the HTTP server, the features) is built meanwhile.
 */
async function beginContext(
  config: Config,
  opts: ContextOptions,
): Promise<OpenContext & { migrated: Promise<void> }> {
  const log = opts.log ?? (await createLogger(config.logLevel, config.logFormat));
  const database =
    opts.database ??
    (await (opts.opening ??
      startDatabase({ server: config.database, dataDir: config.dataDir, fsync: config.dataFsync })));
  const files = loadMigrations();
  const migrated = Promise.all([files, untilAborted(database.ready, opts.signal)])
    .then(([all]) => migrate(database, all, opts.signal))
    .then((applied) => {
      if (applied.length > 0) log.info({ applied }, 'migrations applied');
    });
  migrated.catch(() => {}); // awaited by the caller
  const controller = new AbortController();
  opts.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const clock = opts.clock ?? systemClock;
  const health = new HealthRegistry(clock, logFeedChanges(log, controller.signal));
  const ctx: AppContext = {
    config,
    database,
    clock,
    log,
    health,
    shutdown: controller.signal,
    budgets: createProviderBudgets(clock, health, opts.budgetLimits),
    leadership:
      opts.leadership ??
      createLeaderships(database.kind === 'postgres' ? config.database : null, {
        log,
        intervalMs: opts.leadershipIntervalMs,
      }),
  };
  watchNotifications(ctx);
  logDatabaseState(ctx);
  let closing: Promise<void> | null = null;
  return {
    ctx,
    migrated,
    abort: () => controller.abort(),
    close: (closeOpts) => {
      controller.abort();
      closing ??= opts.database ? Promise.resolve() : database.close(closeOpts);
      return closing;
    },
  };
}

/**
 * The notification connection (a server's LISTEN) as a feed of its own in /health, from its first
 * connection on: while it is down the process's streams hear nothing from the other processes.
 */
function watchNotifications(ctx: AppContext): void {
  ctx.database.watchNotifications(({ connected, error }) => {
    const feed = ctx.health.feed('notifications');
    if (connected) {
      if (feed.connected === false) feed.reconnects++;
      feed.success();
      feed.detail = null;
    } else {
      feed.failure(error);
      feed.detail = 'reconnecting: streams miss other processes’ updates until it is back';
    }
    feed.connected = connected;
  });
}

/** The embedded database's state in the log: broken (statements refused), opened again, or failed for good. */
function logDatabaseState(ctx: AppContext): void {
  ctx.database.watchState((change) => {
    if (change.state === 'broken')
      ctx.log.error(
        { error: change.error },
        'the embedded database stopped answering in step: requests are answered 503 while it is opened again',
      );
    else if (change.state === 'reopened')
      ctx.log.warn({ ms: change.ms }, 'the embedded database is open again');
    else ctx.log.fatal({ error: change.error }, 'the embedded database cannot be opened again');
  });
}

export interface RuntimeOptions extends ContextOptions {
  services?: Partial<Services>;
  /** Tests may shorten the MQTT publisher's intervals and backoff. */
  mqtt?: Partial<MqttOptions>;
}

export interface Runtime extends BuiltApp {
  ctx: AppContext;
  /**
   * Takes the locks (on a server), then starts each feature and its jobs, in order (the HTTP
   * server is started by the caller).
   */
  startFeeds(): Promise<void>;
  /** Stops feeds, closes sockets and the database, each phase bounded (STOP_PHASES_MS); safe to call twice. */
  stop(): Promise<void>;
}

/**
 * How long each phase of a stop may wait: together well inside the 5 s a stop is given
 * (docs/operations.md, "Stopping"). Every wait hears ctx.shutdown, so a phase normally ends in
 * milliseconds; the bounds are for what cannot hear it (a statement in progress, a stuck socket).
 */
export const STOP_PHASES_MS = { features: 1_000, http: 1_000, database: 1_500 } as const;

/** The context, the configured services' features and the app that serves them. */
export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const { ctx, abort, close, migrated } = await beginContext(config, opts);
  let built: BuiltApp;
  try {
    built = await buildApp(ctx, { ...SERVICES, ...opts.services }, opts.mqtt);
    // Fastify's plugins and routes made ready while the database is still opening
    await built.app.ready();
  } catch (e) {
    await close();
    throw e;
  }
  await migrated.catch(async (e: unknown) => {
    await built.app.close();
    await close({ withinMs: opts.signal?.aborted ? STOP_PHASES_MS.database : Infinity });
    throw e;
  });
  // made before the locks are first tried, so that each lock a job runs under is tried then
  const jobs = built.features.map((f) => (f.jobs ?? []).map((job) => new JobRunner(job, ctx)));
  let stopping: Promise<void> | null = null;
  let starting: Promise<void> | null = null;
  return {
    ...built,
    ctx,
    startFeeds: () => {
      starting = (async () => {
        await ctx.leadership.start();
        for (const [i, f] of built.features.entries()) {
          if (ctx.shutdown.aborted) return;
          await f.start?.();
          for (const job of jobs[i]!) job.start();
        }
      })();
      return starting;
    },
    stop: () => {
      stopping ??= (async () => {
        abort();
        const bounded = async (phase: string, work: Promise<unknown>, ms: number) => {
          const late = (await within(work, ms)) === 'late';
          if (late) ctx.log.warn({ phase, ms }, `stop: ${phase} did not end within ${ms} ms; going on`);
          return late;
        };
        await bounded(
          'features',
          (async () => {
            // a feature still starting finishes (its waits end on the abort) before anything is closed
            await starting?.catch(() => {});
            for (const [i, f] of [...built.features.entries()].reverse()) {
              // every wait of a job hears the abort: a stop waits only for the rounds under way
              for (const job of [...jobs[i]!].reverse()) await job.stop();
              await Promise.resolve(f.stop?.()).catch((e: unknown) =>
                ctx.log.error({ err: e, feature: f.name }, 'stop failed'),
              );
            }
            await ctx.leadership.stop();
          })(),
          STOP_PHASES_MS.features,
        );
        // new requests are answered 503 while those in flight finish; past the bound their sockets close
        const closing = built.app.close();
        // a connection whose request ends during the close is kept alive for the client otherwise
        const idle = setInterval(() => built.app.server.closeIdleConnections(), 25);
        const late = await bounded('http', closing, STOP_PHASES_MS.http);
        clearInterval(idle);
        if (late) {
          built.app.server.closeAllConnections();
          await within(closing, 100);
        }
        await close({ withinMs: STOP_PHASES_MS.database });
      })();
      return stopping;
    },
  };
}
