import type { Context, Middleware } from 'koa';
import {
  requireScope,
  type Caller,
  type OPERATION_SCOPES,
  type Scope,
} from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import type { KeyedLimiter } from '../limits/keyed-limiter.js';
import { clientKey } from './client-key.js';
import { HttpProblem, problem } from './error-catalogue.js';
import { countRawHeaders } from './raw-headers.js';
import { requestState } from './request-state.js';

const tooManyFailures = (ms: number): void => {
  if (ms > 0) throw problem('too-many-auth-failures', Math.ceil(ms / 1000));
};

// RFC 6750 b64token (RFC 7235 token68).
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const NOT_B64TOKEN =
  'the Bearer credentials must be a token of A-Z a-z 0-9 - . _ ~ + / (then optional =)';

/** Reads the bearer token of a request, or throws the contract's 400 or 401. */
function bearerToken(ctx: Context): string {
  const header = ctx.get('Authorization');
  // Node keeps only the first of repeated Authorization headers, so count them in the raw list.
  if (countRawHeaders(ctx.req.rawHeaders, 'authorization') > 1) {
    throw problem('malformed-credentials', 'send exactly one Authorization header');
  }
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme === '' || scheme.toLowerCase() !== 'bearer') throw problem('missing-credentials');
  const token = space === -1 ? '' : header.slice(space + 1).replace(/^ +/, '');
  if (!B64TOKEN.test(token)) throw problem('malformed-credentials', NOT_B64TOKEN);
  return token;
}

/** The authorization of an operation, by its name in the domain's table of scopes. */
export type Authorize = (operation: keyof typeof OPERATION_SCOPES) => Middleware;

/** What bounds callers besides their tokens; undefined: no bound. */
type AuthLimits = Record<'tenants' | 'failures', KeyedLimiter | undefined>;

/**
 * Authenticates the request and checks its scope before anything reads the body, in the
 * contract's order: the address's failure budget, the token, the tenant's rate limit, the scope.
 * Only authentication failures (400 40005, 401) cost a round trip; an address that used up its
 * budget is refused by this process alone (429 42902, before its token is looked at), so a flood
 * of made-up tokens costs no lookups or checks.
 */
export function authorize(verifier: TokenVerifier, scope: Scope, limits: AuthLimits): Middleware {
  const { tenants, failures } = limits;
  return async (ctx, next) => {
    // ctx.ip: the peer's address, or the client's behind a trusted proxy (trusted-proxy.ts).
    if (failures !== undefined) tooManyFailures(failures.refusedFor(clientKey(ctx.ip)));
    let caller: Caller | undefined;
    try {
      const token = bearerToken(ctx);
      caller = verifier.verifyNow?.(token) ?? (await verifier.verify(token));
      if (caller === undefined) throw problem('invalid-token');
    } catch (error) {
      // Malformed, missing or invalid credentials count against the address; a store outage is
      // not the client's. The failure that uses up the budget is answered 429 42902.
      if (failures !== undefined && error instanceof HttpProblem && error.status < 500) {
        tooManyFailures(await failures.consume(clientKey(ctx.ip)));
      }
      throw error;
    }
    // The tenant's limit first, whatever its scope; a request refused for its scope spends nothing.
    if (tenants !== undefined) {
      const ms = await tenants[caller.scopes.includes(scope) ? 'consume' : 'peek'](caller.tenant);
      if (ms > 0)
        throw problem('rate-limited', { perSecond: tenants.points, wait: Math.ceil(ms / 1000) });
    }
    requireScope(caller, scope);
    requestState(ctx).caller = caller;
    await next();
  };
}
