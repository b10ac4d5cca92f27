import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { isScope, type Caller } from '../../domain/caller.js';
import { PlantError } from '../../domain/errors.js';
import { isTenant } from '../../domain/tenant.js';
import type { Logger } from '../../ports/logger.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';

/** Asymmetric signature algorithms only: never `none`, never HMAC (which a public key could forge). */
export type JwtAlgorithm =
  'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

/** JWT bearer tokens from an identity provider; absent unless PLANT_STORE_JWT_ISSUER is set. */
export interface JwtConfig {
  issuer: string;
  audience: string[];
  keys: { kind: 'jwks'; url: string } | { kind: 'public-key'; key: string };
  algorithms: JwtAlgorithm[];
  tenantClaim: string;
  clockToleranceSeconds: number;
}

// jose's key set: an unknown `kid` refetches at most every 30 s, keys are kept 10 min, a fetch
// waits 5 s. After a failed fetch, JWTs answer unavailable for JWKS_RETRY_MS without another
// (the 503's Retry-After is 1 s): a provider that is down is asked once a second, not a request.
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_RETRY_MS = 1000;
/** The largest key set read (1 MiB; providers serve a few kB): larger is a provider outage. */
export const JWKS_MAX_BYTES = 1024 * 1024;

export interface JwtTokenVerifierOptions {
  /** Overrides the JWKS cooldown and retry times (tests). */
  cooldownMs?: number;
  retryMs?: number;
  logger?: Logger;
}

// Key-set refusals that are the token's fault (no key for its kid or alg): 401. Any other failure
// of the key set (timeout, no answer, not a JWKS) means the issuer's keys are out of reach: 503.
const TOKEN_FAULTS = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
]);

/** The fetch not tried: the last one failed less than JWKS_RETRY_MS ago. */
class NotRetriedYet extends Error {}

/** Reads a PEM SPKI public key or a public JWK (JSON); throws on anything else, private keys included. */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const jwk = JSON.parse(trimmed) as Record<string, unknown>;
    if ('d' in jwk || jwk.kty === 'oct') throw new Error('a private or symmetric JWK');
    return createPublicKey({ key: jwk as never, format: 'jwk' });
  }
  if (!trimmed.includes('-----BEGIN PUBLIC KEY-----')) throw new Error('no PEM public key');
  return createPublicKey(trimmed);
}

/** A body past its bound: the connection was cut there, and nothing of it is kept. */
export class BodyTooLarge extends Error {}

type Fetch = (url: string, init: RequestInit & { signal?: AbortSignal }) => Promise<Response>;

/**
 * `fetch` reading a 200 answer up to `limit` bytes: past them (or a Content-Length past them) it
 * cuts the connection and throws BodyTooLarge. `onBody` hears of each body read whole. Other
 * statuses come back without their body.
 */
export function boundedFetch(limit: number, onBody?: () => void): Fetch {
  return async (url, init) => {
    const cut = new AbortController();
    const signal = init.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    const response = await fetch(url, { ...init, signal });
    const { status, statusText, headers } = response;
    const refuse = (): BodyTooLarge => {
      cut.abort();
      return new BodyTooLarge(`the answer of ${url} is larger than ${limit} bytes`);
    };
    if (status !== 200 || response.body === null) {
      cut.abort();
      return new Response(null, { status, statusText, headers });
    }
    if (Number(headers.get('content-length')) > limit) throw refuse();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > limit) throw refuse();
      chunks.push(chunk);
    }
    onBody?.();
    return new Response(Buffer.concat(chunks), { status, statusText, headers });
  };
}

/**
 * JWTs verified with jose: an allowed asymmetric algorithm, `exp` (required), `nbf`, `iss`, `aud`.
 * A failed check resolves undefined (401); a key set that cannot be fetched rejects (503), and so
 * does every JWT needing it for JWKS_RETRY_MS after, without another fetch.
 */
export class JwtTokenVerifier implements TokenVerifier {
  private readonly key: JWTVerifyGetKey;

  constructor(
    private readonly config: JwtConfig,
    private readonly options: JwtTokenVerifierOptions = {},
  ) {
    if (config.keys.kind === 'public-key') {
      const key = parsePublicKey(config.keys.key);
      this.key = () => key;
      return;
    }
    const { logger, retryMs = JWKS_RETRY_MS } = options;
    // Key sets read whole: since the last outage began, or ever.
    let fetched = 0;
    let outage: { fetched: number } | undefined;
    // Until then no fetch is tried (jose would try one for every JWT while the set is missing).
    let retryAt = 0;
    const bounded = boundedFetch(JWKS_MAX_BYTES, () => fetched++);
    const remote = createRemoteJWKSet(new URL(config.keys.url), {
      cooldownDuration: options.cooldownMs ?? JWKS_COOLDOWN_MS,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5_000,
      [customFetch]: (url: string, init: Parameters<typeof bounded>[1]) =>
        Date.now() < retryAt
          ? Promise.reject(new NotRetriedYet('the last fetch of the JWKS failed moments ago'))
          : bounded(url, init),
    });
    this.key = async (header, token) => {
      try {
        const key = await remote(header, token);
        // Over once a key set was read again (keys already held answer meanwhile too).
        if (outage !== undefined && fetched > outage.fetched) {
          outage = undefined;
          logger?.info({}, 'the JWKS can be fetched again');
        }
        return key;
      } catch (error) {
        if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) throw error;
        if (!(error instanceof NotRetriedYet)) retryAt = Date.now() + retryMs;
        // Once per outage, as the stores report theirs: every JWT fails the same way meanwhile.
        if (outage === undefined) {
          outage = { fetched };
          logger?.warn({ reason: (error as Error).message }, 'the JWKS could not be fetched');
        }
        throw new PlantError(
          'token-verification-unavailable',
          "the token issuer's keys are unavailable",
        );
      }
    };
  }

  async verify(token: string): Promise<Caller | undefined> {
    const { issuer, audience, algorithms, clockToleranceSeconds, tenantClaim } = this.config;
    const refused = (reason: string) => this.options.logger?.debug({ reason }, 'JWT refused');
    const verified = await jwtVerify(token, this.key, {
      issuer,
      audience,
      algorithms,
      clockTolerance: clockToleranceSeconds,
      requiredClaims: ['exp'],
    }).catch((error: unknown) => {
      if (error instanceof PlantError) throw error;
      refused((error as Error).name);
    });
    if (verified === undefined) return undefined;
    const { payload } = verified;
    const tenant = payload[tenantClaim];
    // The same rule as static and managed tokens: a claim is no way around it.
    if (!isTenant(tenant)) return void refused('tenant claim');
    const raw = payload.scope !== undefined ? payload.scope : payload.scp;
    const words = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
    // Scopes of other services (openid, email, ...) are ignored, not refused.
    return Object.freeze({ tenant, scopes: Object.freeze([...new Set(words.filter(isScope))]) });
  }
}
