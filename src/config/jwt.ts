import {
  parsePublicKey,
  type JwtAlgorithm,
  type JwtConfig,
} from '../adapters/auth/jwt-token-verifier.js';
import { ConfigError } from '../adapters/config-error.js';
import { parseInteger, parseList } from './parse.js';

/** Asymmetric signature algorithms only: never `none`, never HMAC (which a public key could forge). */
const JWT_ALGORITHMS = 'RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA'.split(' ');

export type { JwtConfig };

function parseJwksUrl(text: string): string {
  if (!URL.canParse(text)) {
    throw new ConfigError(`PLANT_STORE_JWT_JWKS_URL must be an absolute URL (got "${text}")`);
  }
  const url = new URL(text);
  // Keys fetched over plain HTTP could be swapped on the way; loopback is allowed for development.
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
  ) {
    throw new ConfigError('PLANT_STORE_JWT_JWKS_URL must use https (http only on loopback)');
  }
  return url.href;
}

/** Reads the PLANT_STORE_JWT_* variables; undefined when JWTs are not configured. */
export function parseJwt(env: NodeJS.ProcessEnv): JwtConfig | undefined {
  const issuer = env.PLANT_STORE_JWT_ISSUER ?? '';
  if (issuer === '') {
    const stray = Object.keys(env)
      .filter((name) => name.startsWith('PLANT_STORE_JWT_') && env[name] !== '')
      .sort()[0];
    if (stray !== undefined) {
      throw new ConfigError(`PLANT_STORE_JWT_ISSUER must be set when ${stray} is`);
    }
    return undefined;
  }
  const audience = parseList(env.PLANT_STORE_JWT_AUDIENCE ?? '');
  if (audience.length === 0) {
    throw new ConfigError('PLANT_STORE_JWT_AUDIENCE must name the audience tokens are issued for');
  }
  const jwksUrl = env.PLANT_STORE_JWT_JWKS_URL ?? '';
  const publicKey = env.PLANT_STORE_JWT_PUBLIC_KEY ?? '';
  if ((jwksUrl === '') === (publicKey === '')) {
    throw new ConfigError(
      'PLANT_STORE_JWT_JWKS_URL or PLANT_STORE_JWT_PUBLIC_KEY must be set (exactly one of them)',
    );
  }
  if (publicKey !== '') {
    try {
      parsePublicKey(publicKey);
    } catch {
      throw new ConfigError(
        'PLANT_STORE_JWT_PUBLIC_KEY must be a PEM public key (BEGIN PUBLIC KEY) or a public JWK',
      );
    }
  }
  const algorithms = parseList(env.PLANT_STORE_JWT_ALGORITHMS || 'RS256,ES256');
  const wrong = algorithms.find((alg) => !JWT_ALGORITHMS.includes(alg));
  if (wrong !== undefined || algorithms.length === 0) {
    throw new ConfigError(
      `PLANT_STORE_JWT_ALGORITHMS must list some of ${JWT_ALGORITHMS.join(', ')} (got "${wrong ?? ''}")`,
    );
  }
  return {
    issuer,
    audience,
    keys:
      jwksUrl !== ''
        ? { kind: 'jwks', url: parseJwksUrl(jwksUrl) }
        : { kind: 'public-key', key: publicKey },
    algorithms: algorithms as JwtAlgorithm[],
    tenantClaim: env.PLANT_STORE_JWT_TENANT_CLAIM || 'tenant',
    clockToleranceSeconds: parseInteger(env, 'PLANT_STORE_JWT_CLOCK_TOLERANCE', 30, 0, 300),
  };
}
