import type { Caller } from '../domain/caller.js';

/** Driven port: turns a bearer token into the caller it stands for. */
export interface TokenVerifier {
  /** Resolves the caller, or undefined when the token is unknown, revoked or expired; never logs the token. */
  verify(token: string): Promise<Caller | undefined>;
  /**
   * Optional: answers at once, without I/O, for a token it can decide so (e.g. a configured one);
   * undefined means "ask verify()". Spares the request path its asynchronous steps.
   */
  verifyNow?(token: string): Caller | undefined;
}
