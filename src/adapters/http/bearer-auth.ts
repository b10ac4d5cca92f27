import type { Context, Middleware } from 'koa';
import { requireScope, type Caller, type Scope } from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import type { KeyedLimiter } from '../limits/keyed-limiter.js';
import { clientKey } from './client-key.js';
import { HttpProblem, problem } from './error-catalogue.js';
import { countRawHeaders } from './raw-headers.js';
import { requestState } from './request-state.js';

/** Checks a caller against the tenant's budget; `spend` false checks without using it up. */
export type Admit = (caller: Caller, spend: boolean) => Promise<void>;

/**
 * The tenant's requests a second, counted by `limiter`: a check that rejects with the contract's
 * 429 when none are left, spending only when asked (a request refused for its scope costs nothing).
 */
export function tenantRateLimit(limiter: KeyedLimiter): Admit {
  const perSecond = limiter.points;
  const admitted = (ms: number): void => {
    if (ms > 0) throw problem('rate-limited', { perSecond, wait: Math.ceil(ms / 1000) });
  };
  return (caller, spend) =>
    (spend ? limiter.consume(caller.tenant) : limiter.peek(caller.tenant)).then(admitted);
}

/**
 * Authentication failures (400 40005, 401) per client address, counted by `limiter`. Only failures
 * cost a round trip; an address that used up its budget is refused by this process alone (429
 * 42902, before its token is looked at), so a flood of made-up tokens costs no lookups or checks.
 */
export class AuthFailureBudget {
  constructor(private readonly limiter: KeyedLimiter) {}

  /** Throws the contract's 429 when this process knows the address used up its failures. */
  check(address: string | undefined): void {
    refuseFor(this.limiter.refusedFor(clientKey(address)));
  }

  /** Counts one failed authentication; rejects with the contract's 429 when it was one too many. */
  async charge(address: string | undefined): Promise<void> {
    refuseFor(await this.limiter.consume(clientKey(address)));
  }
}

const refuseFor = (ms: number): void => {
  if (ms > 0) throw problem('too-many-auth-failures', Math.ceil(ms / 1000));
};

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

/** What bounds callers besides their tokens: the tenant's requests, the address's failures. */
export interface AuthLimits {
  admit?: Admit | undefined;
  failures?: AuthFailureBudget | undefined;
}

/**
 * Authenticates the request and checks its scope before anything reads the body, in the
 * contract's order: the address's failure budget, the token, the tenant's rate limit, the scope.
 */
export function authorize(
  tokenVerifier: TokenVerifier,
  scope: Scope,
  { admit, failures }: AuthLimits = {},
): Middleware {
  return async (ctx, next) => {
    // The peer's address, or the client's behind a trusted proxy (trusted-proxy.ts).
    const address = ctx.ip;
    failures?.check(address);
    let caller: Caller | undefined;
    try {
      const token = bearerToken(ctx);
      caller = tokenVerifier.verifyNow?.(token) ?? (await tokenVerifier.verify(token));
      if (caller === undefined) throw problem('invalid-token');
    } catch (error) {
      // Malformed, missing or invalid credentials count against the address; a store outage is
      // not the client's. The failure that uses up the budget is answered 429 42902.
      if (failures !== undefined && error instanceof HttpProblem && error.status < 500) {
        await failures.charge(address);
      }
      throw error;
    }
    // The tenant's limit first: a tenant over it is refused 429 whatever its scope.
    await admit?.(caller, caller.scopes.includes(scope));
    requireScope(caller, scope);
    requestState(ctx).caller = caller;
    await next();
  };
}
