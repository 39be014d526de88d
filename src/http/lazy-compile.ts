import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';
import type { FastifyServerOptions } from 'fastify';

/**
 * Route schemas compiled on a route's first use instead of at start. Compiling every request
 * validator (Ajv) and response serializer (fast-json-stringify) of the ~80 routes took more CPU
 * at start than opening the database (docs/operations.md, "Memory and start-up"); a household's
 * process serves a handful of them. `compileAll()` compiles what is pending, so that a test still
 * finds a schema that does not compile without waiting for a request to reach it.
 */
const pending = new Set<() => unknown>();

/** Compiles every schema not yet compiled; returns how many it compiled. */
export function compileAll(): number {
  const all = [...pending];
  for (const compile of all) compile();
  return all.length;
}

/**
 * A validator that compiles on its first call. It carries `schemaEnv` so that Fastify passes the
 * parent object (as it does to Ajv's own functions) and coercion and defaults reach the request.
 */
export function lazyValidator(compile: () => ValidateFunction): ValidateFunction {
  const get = onFirstUse(compile);
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const f = get();
    const ok = f(data, context);
    validate.errors = f.errors;
    return ok;
  }) as ValidateFunction;
  return Object.assign(validate, { schemaEnv: {} as ValidateFunction['schemaEnv'] });
}

/** `compile()` on the first call of the returned function, pending until then. */
function onFirstUse<F>(compile: () => F): () => F {
  let fn: F | null = null;
  const get = () => {
    if (fn === null) {
      pending.delete(get);
      fn = compile();
    }
    return fn;
  };
  pending.add(get);
  return get;
}

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Fastify's own serializer factory (fast-json-stringify), each route's serializer built on first
 * use, but for the `eager` paths: built when the app is made ready, which the start does while the
 * database opens. /health is asked first (a supervisor waits for it) and often.
 */
export const lazySerializers =
  (eager: ReadonlySet<string>): BuildSerializer =>
  (externalSchemas, options) => {
    const compiler = (SerializerSelector as unknown as () => BuildSerializer)()(externalSchemas, options);
    return (route) => {
      if (eager.has(route.url)) return compiler(route);
      const get = onFirstUse(() => compiler(route));
      return (data: unknown) => get()(data);
    };
  };
