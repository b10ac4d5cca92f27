import type { Context, Middleware } from 'koa';
import { requireScope, type Scope } from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import type { AuthFailureBudget } from './auth-failure-budget.js';
import { problem } from './error-catalogue.js';
import { countRawHeaders } from './raw-headers.js';
import { HttpProblem } from './http-problem.js';
import { requestState } from './request-state.js';
import type { Admit } from './rate-limit.js';

// RFC 6750 b64token (RFC 7235 token68).
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

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
  if (!B64TOKEN.test(token)) {
    throw problem(
      'malformed-credentials',
      'the Bearer credentials must be a token of A-Z a-z 0-9 - . _ ~ + / (then optional =)',
    );
  }
  return token;
}

/** What bounds callers besides their tokens; both are optional. */
export interface AuthLimits {
  /** The tenant's request budget. */
  admit?: Admit | undefined;
  /** Failed authentications per client address. */
  failures?: AuthFailureBudget | undefined;
}

/**
 * Authenticates the request and checks the scope the operation needs, before anything reads the
 * body: the contract puts credentials and scope ahead of every other check. An address over its
 * budget of failed authentications is refused before its token is looked at; a tenant over its
 * rate limit is refused before the scope is checked, yet only requests with the scope spend it.
 */
export function authorize(
  tokenVerifier: TokenVerifier,
  scope: Scope,
  { admit, failures }: AuthLimits = {},
): Middleware {
  // Malformed or missing credentials (400 40005, 401 40101) count against the address; a store
  // outage is not the client's. The failure that uses up the budget is answered 429 42902.
  const charged = async (address: string | undefined, error: unknown): Promise<never> => {
    if (failures !== undefined && error instanceof HttpProblem && error.status < 500) {
      await failures.charge(address);
    }
    throw error;
  };
  return async (ctx, next) => {
    // The peer's address, or the client's behind a trusted proxy (trusted-proxy.ts).
    const address = ctx.ip;
    failures?.check(address);
    let token: string;
    try {
      token = bearerToken(ctx);
    } catch (error) {
      return charged(address, error);
    }
    let caller = tokenVerifier.verifyNow?.(token);
    if (caller === undefined) {
      try {
        caller = await tokenVerifier.verify(token);
      } catch (error) {
        return charged(address, error);
      }
    }
    if (caller === undefined) return charged(address, problem('invalid-token'));
    // The tenant's limit first: a tenant over it is refused 429 whatever its scope.
    await admit?.(caller, caller.scopes.includes(scope));
    requireScope(caller, scope);
    requestState(ctx).caller = caller;
    await next();
  };
}
