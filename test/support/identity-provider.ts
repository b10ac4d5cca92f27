import { createServer, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(
  kid: string,
  alg: 'RS256' | 'ES256' = 'RS256',
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
  };
}

/** Writes a body of `bytes` slowly until it is all written or the client closes the connection. */
async function writeOversized(
  res: ServerResponse,
  { bytes, chunkBytes, everyMs }: NonNullable<IdentityProvider['oversized']>,
): Promise<{ written: number; whole: boolean }> {
  const closed = once(res, 'close');
  const chunk = Buffer.alloc(chunkBytes, ' ');
  let written = 0;
  res.write('{"keys":[');
  while (written < bytes && !res.destroyed) {
    written += chunkBytes;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
    await sleep(everyMs);
  }
  const whole = !res.destroyed;
  res.end(']}');
  await closed;
  return { written, whole };
}

/**
 * An OIDC-style issuer for tests: a JWKS served on loopback by node:http, whose keys the test can
 * rotate, counting fetches, and a signer of tokens with any claims.
 */
export class IdentityProvider {
  readonly issuer = 'https://issuer.test/';
  readonly audience = 'plant-store-api';
  fetches = 0;
  served: SigningKey[];
  /**
   * When set, the JWKS answer is `bytes` long (no Content-Length), written `chunkBytes` at a time
   * every `everyMs` as the connection takes them: a provider gone wrong, or a hostile one.
   */
  oversized: { bytes: number; chunkBytes: number; everyMs: number } | undefined;
  /** When true, the JWKS is refused (503, no body): a provider that is down, counted as a fetch. */
  refusing = false;
  /** Of the last oversized answer, once its connection closed: bytes written, and whether all. */
  oversizedSent: Promise<{ written: number; whole: boolean }> | undefined;

  private constructor(
    private readonly server: Server,
    readonly keys: SigningKey[],
  ) {
    this.served = [...keys];
  }

  static async start(): Promise<IdentityProvider> {
    const keys = [await signingKey('rsa-1', 'RS256'), await signingKey('ec-1', 'ES256')];
    const server = createServer();
    const provider = new IdentityProvider(server, keys);
    server.on('request', (req, res) => {
      provider.fetches++;
      if (provider.refusing) {
        res.writeHead(503).end();
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      if (provider.oversized !== undefined) {
        provider.oversizedSent = writeOversized(res, provider.oversized);
        return;
      }
      res.end(JSON.stringify({ keys: provider.served.map((key) => key.publicJwk) }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return provider;
  }

  get jwksUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/jwks.json`;
  }

  /** A token signed by `key` (the first RSA key by default) with standard claims, then `claims`. */
  async sign(claims: Record<string, unknown>, key: SigningKey = this.keys[0]!): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: this.issuer,
      aud: this.audience,
      iat: now,
      exp: now + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
