import { pino, type Logger } from 'pino';
import { buildApp, type BuiltApp } from './app.js';
import { btcService } from './btc/index.js';
import type { Config } from './config.js';
import type { AppContext, Services } from './context.js';
import { startDatabase, type Database } from './db/connect.js';
import { loadMigrations, migrate } from './db/migrate.js';
import { HealthRegistry } from './http/health.js';
import type { MqttOptions } from './mqtt/index.js';
import { powerService } from './power/index.js';
import { createProviderBudgets, type BudgetLimit, type ProviderName } from './providers/budget.js';
import { systemClock, type Clock } from './shared/clock.js';

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', '*.token', '*.apiToken', '*.password', 'config.strikeApiKey'],
      censor: '[redacted]',
    },
  });
}

/** The services a process can run; tests and benchmarks pass their own compositions. */
export const SERVICES: Services = { btc: btcService, power: powerService };

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** An open database owned by the caller; otherwise one is opened from the config and closed on close(). */
  database?: Database;
  /** Tests may narrow a provider's call budget; production uses the published limits (budget.ts). */
  budgetLimits?: Partial<Record<ProviderName, BudgetLimit>>;
  /** A database already being started from the config (owned, and closed on close(), like one started here). */
  opening?: Promise<Database>;
}

export interface OpenContext {
  ctx: AppContext;
  /** Aborts ctx.shutdown: sleeps end, provider calls are cancelled. */
  abort: () => void;
  /** Aborts, then closes the database this opened; safe to call twice. */
  close: () => Promise<void>;
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
  const log = opts.log ?? createLogger(config.logLevel);
  const database =
    opts.database ??
    (await (opts.opening ??
      startDatabase({ server: config.database, dataDir: config.dataDir, fsync: config.dataFsync })));
  const files = loadMigrations();
  const migrated = Promise.all([files, database.ready])
    .then(([all]) => migrate(database, all))
    .then((applied) => {
      if (applied.length > 0) log.info({ applied }, 'migrations applied');
    });
  migrated.catch(() => {}); // awaited by the caller
  const controller = new AbortController();
  const clock = opts.clock ?? systemClock;
  const health = new HealthRegistry(clock);
  const ctx: AppContext = {
    config,
    database,
    clock,
    log,
    health,
    shutdown: controller.signal,
    budgets: createProviderBudgets(clock, health, opts.budgetLimits),
  };
  watchNotifications(ctx);
  let closing: Promise<void> | null = null;
  return {
    ctx,
    migrated,
    abort: () => controller.abort(),
    close: () => {
      controller.abort();
      closing ??= opts.database ? Promise.resolve() : database.close();
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

export interface RuntimeOptions extends ContextOptions {
  services?: Partial<Services>;
  /** Tests may shorten the MQTT publisher's intervals and backoff. */
  mqtt?: Partial<MqttOptions>;
}

export interface Runtime extends BuiltApp {
  ctx: AppContext;
  /** Starts the background feeds (the HTTP server is started by the caller). */
  startFeeds(): Promise<void>;
  /** Stops feeds, closes sockets and the database; safe to call twice. */
  stop(): Promise<void>;
}

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
    await close();
    throw e;
  });
  let stopping: Promise<void> | null = null;
  let starting: Promise<void> | null = null;
  return {
    ...built,
    ctx,
    startFeeds: () => {
      starting = (async () => {
        for (const f of built.features) {
          if (ctx.shutdown.aborted) return;
          await f.start?.();
        }
      })();
      return starting;
    },
    stop: () => {
      stopping ??= (async () => {
        abort();
        // a feature still starting finishes (its waits end on the abort) before anything is closed
        await starting?.catch(() => {});
        for (const f of [...built.features].reverse()) {
          await Promise.resolve(f.stop?.()).catch((e: unknown) =>
            ctx.log.error({ err: e, feature: f.name }, 'stop failed'),
          );
        }
        await built.app.close();
        await close();
      })();
      return stopping;
    },
  };
}
