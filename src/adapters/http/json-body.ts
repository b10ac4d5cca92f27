import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { printableText } from '../../domain/printable-text.js';
import { parseExactJson } from '../exact-json.js';
import { BODY_LIMIT_BYTES, problem, UNKNOWN_CODING } from './error-catalogue.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parses a JSON object exactly (integers as bigint), or throws the contract's invalid-body (40001). */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseExactJson(UTF8.decode(bytes));
  } catch (error) {
    const reason = error instanceof RangeError ? 'nested too deeply' : (error as Error).message;
    // The parser quotes the body: its controls escaped, for whoever prints the answer or logs it.
    const quoted = printableText(reason.slice(0, 200));
    throw problem('invalid-body', `request body is not valid JSON: ${quoted}`);
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

// createUnzip tells gzip from zlib-wrapped deflate by the header, as koa-bodyparser's decoder did.
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createUnzip,
  deflate: createUnzip,
  br: createBrotliDecompress,
};

/**
 * The raw body bytes, for one exact parse (no integer passes through JSON.parse's doubles), held to
 * the limit by raw-body (and by its Content-Length); an encoded one both as received and as
 * decoded: many empty gzip members decode to nothing, yet cost reading and inflating.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const length = req.headers['content-length'];
  // Content codings are case-insensitive (RFC 9110, 8.4.1).
  const coding = req.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  if (coding === 'identity')
    return getRawBody(req, { limit: BODY_LIMIT_BYTES, length: length ?? null });
  const createDecoder = DECODERS[coding];
  if (createDecoder === undefined) throw problem('unsupported-media-type', UNKNOWN_CODING);
  if (Number(length ?? 0) > BODY_LIMIT_BYTES) throw problem('body-too-large');
  const decoder = createDecoder();
  // Errors after raw-body has given up (the rest of a refused body, a stream cut short) reach no
  // one else: unhandled, they would end the process.
  decoder.on('error', () => {});
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > BODY_LIMIT_BYTES) stop(problem('body-too-large'));
  };
  // A client that goes away mid-body ends the decoding too, instead of leaving it waiting.
  const aborted = () => stop(problem('invalid-body'));
  const stop = (error?: Error) => {
    req.unpipe(decoder);
    req.pause();
    req.off('data', count);
    req.off('aborted', aborted);
    decoder.destroy(error);
  };
  req.on('data', count);
  req.once('aborted', aborted);
  req.pipe(decoder);
  try {
    return await getRawBody(decoder, { limit: BODY_LIMIT_BYTES });
  } catch (error) {
    if ((error as { status?: unknown }).status !== undefined) throw error;
    throw problem('invalid-body', 'request body does not decode with its Content-Encoding');
  } finally {
    stop();
  }
}
