import { pino, type Logger } from 'pino';
import { buildApp, type BuiltApp } from './app.js';
import type { Config, ServiceName } from './config.js';
import type { AppContext, FeatureFactory } from './context.js';
import { openDatabase, type Database } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { HealthRegistry } from './http/health.js';
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

export interface RuntimeOptions {
  clock?: Clock;
  log?: Logger;
  database?: Database;
  features?: Partial<Record<ServiceName, FeatureFactory[]>>;
}

export interface Runtime extends BuiltApp {
  ctx: AppContext;
  /** Starts the background feeds (the HTTP server is started by the caller). */
  startFeeds(): Promise<void>;
  /** Stops feeds, closes sockets and the database; safe to call twice. */
  stop(): Promise<void>;
}

/** Opens the database, applies migrations and builds the app; the single way every entry point starts. */
export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = opts.log ?? createLogger(config.logLevel);
  const database =
    opts.database ?? (await openDatabase({ server: config.database, dataDir: config.dataDir }));
  const applied = await migrate(database).catch(async (e: unknown) => {
    if (!opts.database) await database.close();
    throw e;
  });
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  const controller = new AbortController();
  const ctx: AppContext = {
    config,
    database,
    clock: opts.clock ?? systemClock,
    log,
    health: new HealthRegistry(),
    shutdown: controller.signal,
  };
  const built = await buildApp(ctx, opts.features);
  let stopping: Promise<void> | null = null;
  return {
    ...built,
    ctx,
    startFeeds: async () => {
      for (const f of built.features) await f.start?.();
    },
    stop: () => {
      stopping ??= (async () => {
        controller.abort();
        for (const f of [...built.features].reverse()) {
          await Promise.resolve(f.stop?.()).catch((e: unknown) =>
            log.error({ err: e, feature: f.name }, 'stop failed'),
          );
        }
        await built.app.close();
        if (!opts.database) await database.close();
      })();
      return stopping;
    },
  };
}
