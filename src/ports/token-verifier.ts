import type { Caller } from '../domain/caller.js';

/** Driven port: turns a bearer token into the caller it stands for. */
export interface TokenVerifier {
  /** Resolves the caller, or undefined when the token is unknown, revoked or expired; never logs the token. */
  verify(token: string): Promise<Caller | undefined>;
  /** Optional: the answer without I/O (a configured token), or undefined: ask verify(). */
  verifyNow?(token: string): Caller | undefined;
}
