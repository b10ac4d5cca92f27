import { createPublicKey, type KeyObject } from 'node:crypto';

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
