import type { KeyObject } from 'node:crypto';
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { isScope, type Caller, type Scope } from '../../domain/caller.js';
import { PlantError } from '../../domain/errors.js';
import { isTenant } from '../../domain/tenant.js';
import type { Logger } from '../../ports/logger.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { boundedFetch } from './bounded-fetch.js';
import { parsePublicKey } from './public-key.js';

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

/** How often an unknown `kid` may trigger a JWKS refetch, and how long fetched keys are kept. */
export const JWKS_COOLDOWN_MS = 30_000;
export const JWKS_MAX_AGE_MS = 10 * 60_000;
export const JWKS_TIMEOUT_MS = 5_000;
/** The largest key set read (1 MiB; providers serve a few kB): larger is a provider outage. */
export const JWKS_MAX_BYTES = 1024 * 1024;
/**
 * After a key set could not be fetched, JWTs are answered unavailable for this long without
 * another fetch (the 503's Retry-After is 1 s): a provider that is down is asked once a second,
 * not once a request.
 */
export const JWKS_RETRY_MS = 1000;

export interface JwtTokenVerifierOptions {
  /** Overrides JWKS_COOLDOWN_MS (tests rotate keys faster). */
  cooldownMs?: number;
  /** Overrides JWKS_MAX_BYTES. */
  maxBytes?: number;
  /** Overrides JWKS_RETRY_MS. */
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

function scopesOf(payload: JWTPayload): Scope[] {
  const raw = payload.scope !== undefined ? payload.scope : payload.scp;
  const words = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  // Scopes of other services (openid, email, ...) are ignored, not refused.
  return [...new Set(words.filter(isScope))];
}

/**
 * JWTs from an identity provider, verified with jose: signature with an allowed asymmetric
 * algorithm, `exp` (required) and `nbf` with a small clock tolerance, `iss` and `aud`. Any failed
 * check resolves undefined (401); a key set that cannot be fetched rejects as unavailable (503),
 * and so does every JWT needing it for JWKS_RETRY_MS after, without another fetch.
 */
export class JwtTokenVerifier implements TokenVerifier {
  private readonly key: JWTVerifyGetKey | KeyObject;

  constructor(
    private readonly config: JwtConfig,
    private readonly options: JwtTokenVerifierOptions = {},
  ) {
    if (config.keys.kind === 'public-key') {
      this.key = parsePublicKey(config.keys.key);
    } else {
      // Key sets read whole: since the last outage began, or ever.
      let fetched = 0;
      let outage: { fetched: number } | undefined;
      // Until then no fetch is tried (jose would try one for every JWT while the set is missing).
      let retryAt = 0;
      const bounded = boundedFetch(options.maxBytes ?? JWKS_MAX_BYTES, () => fetched++);
      const remote = createRemoteJWKSet(new URL(config.keys.url), {
        cooldownDuration: options.cooldownMs ?? JWKS_COOLDOWN_MS,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        timeoutDuration: JWKS_TIMEOUT_MS,
        [customFetch]: (url: string, init: Parameters<typeof bounded>[1]) =>
          Date.now() < retryAt
            ? Promise.reject(new NotRetriedYet('the last fetch of the JWKS failed moments ago'))
            : bounded(url, init),
      });
      this.key = async (header, token) => {
        let key: Awaited<ReturnType<typeof remote>>;
        try {
          key = await remote(header, token);
        } catch (error) {
          if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) throw error;
          if (!(error instanceof NotRetriedYet))
            retryAt = Date.now() + (options.retryMs ?? JWKS_RETRY_MS);
          // Once per outage, as the stores report theirs: every JWT fails the same way meanwhile.
          if (outage === undefined) {
            outage = { fetched };
            options.logger?.warn(
              { reason: (error as Error).message },
              'the JWKS could not be fetched',
            );
          }
          throw new PlantError(
            'token-verification-unavailable',
            "the token issuer's keys are unavailable",
          );
        }
        // Over once a key set was read again (keys already held answer meanwhile too).
        if (outage !== undefined && fetched > outage.fetched) {
          outage = undefined;
          options.logger?.info({}, 'the JWKS can be fetched again');
        }
        return key;
      };
    }
  }

  async verify(token: string): Promise<Caller | undefined> {
    let payload: JWTPayload;
    try {
      const checks = {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.algorithms,
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ['exp'],
      };
      ({ payload } =
        typeof this.key === 'function'
          ? await jwtVerify(token, this.key, checks)
          : await jwtVerify(token, this.key, checks));
    } catch (error) {
      if (error instanceof PlantError) throw error;
      this.options.logger?.debug({ reason: (error as Error).name }, 'JWT refused');
      return undefined;
    }
    const tenant = payload[this.config.tenantClaim];
    // The same rule as static and managed tokens: a claim is no way around it.
    if (!isTenant(tenant)) {
      this.options.logger?.debug({ reason: 'tenant claim' }, 'JWT refused');
      return undefined;
    }
    return Object.freeze({ tenant, scopes: Object.freeze(scopesOf(payload)) });
  }
}
