import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { printableText } from '../../domain/printable-text.js';
import { parseExactJson } from '../exact-json.js';
import { BODY_LIMIT_BYTES, problem } from './error-catalogue.js';
import { readEncodedBody } from './encoded-body.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parses a JSON object exactly (integers as bigint), or throws the contract's invalid-body (40001). */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseExactJson(UTF8.decode(bytes));
  } catch (error) {
    const reason = error instanceof RangeError ? 'nested too deeply' : (error as Error).message;
    // The parser quotes the body: its controls escaped, for whoever prints the answer or logs it.
    throw problem(
      'invalid-body',
      `request body is not valid JSON: ${printableText(reason.slice(0, 200))}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw problem('invalid-body', 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Accepts `application/json` (any case, charset utf-8 if one is named), or throws the contract's 415. */
export const requireJson: Middleware = async (ctx, next) => {
  const [essence = '', ...parameters] = ctx.get('Content-Type').split(';');
  const charset = parameters.find((p) => /^\s*charset\s*=/i.test(p));
  const utf8 = charset === undefined || /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(charset);
  if (essence.trim().toLowerCase() !== 'application/json' || !utf8) {
    throw problem('unsupported-media-type');
  }
  await next();
};

/**
 * The raw body bytes, for one exact parse (no integer passes through JSON.parse's doubles). A body
 * without a content coding goes straight to raw-body, held to the limit by its Content-Length too;
 * an encoded one is held to the limit both as received and as decoded.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  // Content codings are case-insensitive (RFC 9110, 8.4.1).
  const coding = req.headers['content-encoding']?.trim().toLowerCase();
  return coding !== undefined && coding !== 'identity'
    ? readEncodedBody(req, coding)
    : getRawBody(req, { limit: BODY_LIMIT_BYTES, length: req.headers['content-length'] ?? null });
}
