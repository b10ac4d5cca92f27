// Everything a request passes, from the socket to the store, in the order it passes it. Each list
// is what its installer (named beside it) goes through with `inOrder`, which needs a step for each
// name: the order here is the order in the code. This file imports nothing, so adapters may
// import it (the architecture test allows this one file of the composition).

/** The steps of `order`, in that order; `steps` gives one per name (checked when it compiles). */
export const inOrder = <Name extends string, Step>(
  order: readonly Name[],
  steps: Readonly<Record<Name, Step>>,
): Step[] => order.map((name) => steps[name]);

/**
 * 1. What a new connection meets (adapters/http/server/http-server.ts): the per-address and global
 * connection bounds and refusals (connection-slots.ts), a lingering close instead of node:http's
 * destroy after a last answer (close-socket.ts), the send timeout and output budget
 * (output-watch.ts).
 */
export const CONNECTION_POLICIES = ['connection-slots', 'lingering-close', 'output-watch'] as const;

/**
 * 2. What each parsed request meets before the application (http-server.ts), outermost first:
 * pipelined requests answered one at a time (pipelined-answers.ts), then exactly one Host and
 * `Connection: close` once shutting down.
 */
export const REQUEST_POLICIES = ['pipelined-answers', 'host-check'] as const;

/**
 * 3. The Koa middleware (adapters/http/app.ts), outermost first: the client address behind a
 * trusted proxy (trusted-proxy.ts), the access log, metrics and span (request-observer.ts), the
 * Error body for any failure (error-handler.ts), the routers, then 404 or 405.
 */
export const MIDDLEWARE = [
  'trust-proxy',
  'request-observer',
  'error-handler',
  'routes',
  'no-route',
] as const;

/**
 * 4. The guards of each /plants operation (adapters/http/plant-routes.ts), before its handler:
 * `authorize` (bearer-auth.ts: the address's failed-authentication budget, the token, the tenant's
 * rate limit, the scope), then for a body its media type and its bytes (json-body.ts).
 */
export const ROUTE_GUARDS = {
  createPlant: ['authorize', 'require-json', 'read-body'],
  listPlants: ['authorize'],
  deletePlant: ['authorize'],
} as const;

/**
 * 5. Around the use cases (composition/service-modules.ts), outermost first, then PlantService
 * (application/plant-service.ts): a span per use case when a tracer is bound.
 */
export const USE_CASE_DECORATORS = ['traced-use-cases'] as const;

/**
 * 6. Around whatever plant or token store is bound, outermost first (composition/telemetry-module.ts
 * applies them as the store is activated): timing, errors, spans and outage lines
 * (adapters/telemetry/observed-store.ts). The configured storage's stores beneath are
 * StartingStorage's (adapters/storage/starting-storage.ts, bound by storage-module.ts): 503 until
 * the storage is open, then the adapter's (memory, Redis, MongoDB). Each decorator forwards its
 * port's method list (src/ports, adapters/forward-methods.ts).
 */
export const STORE_DECORATORS = ['observed-store'] as const;
