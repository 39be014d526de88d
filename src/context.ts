import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/connect.js';
import type { HealthRegistry } from './http/health.js';
import type { Clock } from './shared/clock.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What every feature is given: nothing reads the environment or the wall clock on its own. */
export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  log: Logger;
  health: HealthRegistry;
  /** Aborted when the process shuts down; pass it to provider calls and sleeps. */
  shutdown: AbortSignal;
}

/** One slice of a service: its routes, and what it runs in the background. */
export interface Feature {
  name: string;
  routes?(app: App): void | Promise<void>;
  /** Starts pollers and connections; must not throw when a provider is down. */
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

export type FeatureFactory = (ctx: AppContext) => Feature;

/** A command-line verb beside serve and migrate. */
export interface Command {
  name: string;
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], ctx: AppContext): Promise<number>;
}
