import type { Readable } from 'node:stream';

const NEWLINE = 0x0a;

/**
 * A byte stream's lines as bytes without their newline, for the import to decode strictly; a line
 * keeps `maxBytes + 1` bytes at most (the import refuses it), so memory stays bounded. `onBytes`
 * hears how many bytes were read, for progress.
 */
export async function* readLines(
  input: Readable,
  maxBytes: number,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  let parts: Buffer[] = [];
  let held = 0;
  const keep = (piece: Buffer): void => {
    if (held > maxBytes) return;
    const room = maxBytes + 1 - held;
    const kept = piece.length > room ? piece.subarray(0, room) : piece;
    parts.push(kept);
    held += kept.length;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    onBytes?.(chunk.length);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      keep(chunk.subarray(start, end));
      yield parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      parts = [];
      held = 0;
      start = end + 1;
    }
    // A copy: a view would pin the stream's 64 KiB chunk while the line waits for its end.
    if (start < chunk.length) keep(Buffer.from(chunk.subarray(start)));
  }
  if (held > 0 || parts.length > 0) yield Buffer.concat(parts);
}
