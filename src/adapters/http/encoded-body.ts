import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Transform } from 'node:stream';
import getRawBody from 'raw-body';
import { BODY_LIMIT_BYTES, problem } from './error-catalogue.js';

// createUnzip tells gzip from zlib-wrapped deflate by the header, as koa-bodyparser's decoder did.
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createUnzip,
  deflate: createUnzip,
  br: createBrotliDecompress,
};

/**
 * Reads and decodes a body sent with a content coding, holding both the bytes received and the
 * bytes decoded to the limit: many empty gzip members decode to nothing, yet cost reading and
 * inflating, so the received bytes are counted before inflation and refused at the limit.
 */
export async function readEncodedBody(req: IncomingMessage, coding: string): Promise<Buffer> {
  const createDecoder = DECODERS[coding];
  if (createDecoder === undefined) {
    throw problem(
      'unsupported-media-type',
      'Content-Encoding must be identity, gzip, deflate or br',
    );
  }
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES)
    throw problem('body-too-large');
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
