import type { Context, Middleware } from 'koa';
import { requireScope, type Caller, type Scope } from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { HttpProblem, REALM } from './http-problem.js';

// RFC 6750 b64token (RFC 7235 token68).
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const missing = () =>
  new HttpProblem(401, 40101, 'an Authorization header with a Bearer token is required', {
    'WWW-Authenticate': REALM,
  });
const malformed = (message: string) =>
  new HttpProblem(400, 40005, message, {
    'WWW-Authenticate': `${REALM}, error="invalid_request"`,
  });
const rejected = () =>
  new HttpProblem(401, 40102, 'the bearer token is unknown, revoked or expired', {
    'WWW-Authenticate': `${REALM}, error="invalid_token"`,
  });

function countAuthorizationHeaders(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

/** Reads the bearer token of a request, or throws the contract's 400 or 401. */
export function bearerToken(ctx: Context): string {
  const header = ctx.get('Authorization');
  // Node keeps only the first of repeated Authorization headers, so count them in the raw list.
  if (countAuthorizationHeaders(ctx.req.rawHeaders) > 1) {
    throw malformed('send exactly one Authorization header');
  }
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme === '' || scheme.toLowerCase() !== 'bearer') throw missing();
  const token = space === -1 ? '' : header.slice(space + 1).replace(/^ +/, '');
  if (!B64TOKEN.test(token)) {
    throw malformed(
      'the Bearer credentials must be a token of A-Z a-z 0-9 - . _ ~ + / (then optional =)',
    );
  }
  return token;
}

export interface CallerState {
  caller: Caller;
}

/**
 * Authenticates the request and checks the scope the operation needs, before anything reads the
 * body: the contract puts credentials and scope ahead of every other check.
 */
export function authorize(
  tokens: TokenVerifier,
  scope: Scope,
  admit: (caller: Caller) => void = () => {},
): Middleware<CallerState> {
  return async (ctx, next) => {
    const caller = await tokens.verify(bearerToken(ctx));
    if (caller === undefined) throw rejected();
    admit(caller);
    requireScope(caller, scope);
    ctx.state.caller = caller;
    await next();
  };
}
