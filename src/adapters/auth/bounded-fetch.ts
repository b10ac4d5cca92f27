/** A body past its bound: the connection was cut there, and nothing of it is kept. */
export class BodyTooLarge extends Error {}

type Fetch = (url: string, init: RequestInit & { signal?: AbortSignal }) => Promise<Response>;

/**
 * `fetch` whose 200 answer is read into memory up to `limit` bytes: a larger one (by its
 * Content-Length, or once more has arrived) is refused with BodyTooLarge and its connection cut,
 * so that a server sending gigabytes costs no more than `limit`. `onBody` hears of each body read
 * whole. Other statuses come back without their body.
 */
export function boundedFetch(limit: number, onBody?: () => void): Fetch {
  return async (url, init) => {
    const cut = new AbortController();
    const signal = init.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    const response = await fetch(url, { ...init, signal });
    const { status, statusText, headers } = response;
    const refuse = (): BodyTooLarge => {
      cut.abort();
      return new BodyTooLarge(`the answer of ${url} is larger than ${limit} bytes`);
    };
    if (status !== 200 || response.body === null) {
      cut.abort();
      return new Response(null, { status, statusText, headers });
    }
    if (Number(headers.get('content-length')) > limit) throw refuse();
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw refuse();
      chunks.push(value);
    }
    onBody?.();
    return new Response(Buffer.concat(chunks), { status, statusText, headers });
  };
}
