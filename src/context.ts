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
import type { RunningService } from './remote/client.js';
import type { Database } from './db/connect.js';
import type { Job } from './jobs/job.js';
import type { Leaderships } from './jobs/leadership.js';
import type { HealthRegistry } from './shared/health.js';
import type { ProviderBudgets } from './providers/budget.js';
import type { Clock } from './shared/clock.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What every feature and command is given: nothing reads the environment or the wall clock on its own. */
export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  log: Logger;
  health: HealthRegistry;
  /** Aborted when the process shuts down; pass it to provider calls and sleeps. */
  shutdown: AbortSignal;
  /** One call budget per provider, created once per process; every provider adapter takes its own. */
  budgets: ProviderBudgets;
  /**
   * The locks whose holder runs what one process runs for all that share a database; held from
   * the runtime's start of the feeds until its stop (a command never takes one).
   */
  leadership: Leaderships;
}

/** One slice of a service: its routes, what it opens and closes, and the jobs it runs in the background. */
export interface Feature {
  name: string;
  routes?(app: App): void | Promise<void>;
  /** Opens what the feature holds (listeners, connections); must not throw when a provider is down. */
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
  /** Run by the runtime from just after start() until just before stop(). */
  jobs?: Job[];
}

/**
 * What a service (btc, power) builds from the context: its features, which start in this order
 * and stop in reverse, and by name the services they answer with, which the process's other
 * features (MQTT) are handed.
 */
export interface Composition<S> {
  features: Feature[];
  services: S;
}

/** A command-line verb beside serve and migrate; it builds only the parts it uses from the context. */
export interface CliCommand {
  name: string;
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], ctx: AppContext): Promise<number>;
  /**
   * The same work sent to the running satwatt when that holds the embedded database: the same
   * arguments, output and exit code.
   */
  forward?(args: string[], service: RunningService): Promise<number>;
}

/** A verb that opens the database on its own terms (a backup leaves it unmigrated, a restore makes it). */
export interface ConfigCommand {
  name: string;
  usage: string;
  runWithConfig(args: string[], config: Config): Promise<number>;
}
