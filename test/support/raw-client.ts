import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

/** A TCP client that sends exactly the given bytes and records what comes back. */
export class RawClient {
  private chunks: Buffer[] = [];
  /** The code of the first socket error (ECONNRESET, EPIPE), if any. */
  error: string | undefined;
  /** Resolves when the server half-closes (FIN) or the connection is reset or closed. */
  readonly ended: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (this.error ??= error.code));
    this.ended = new Promise((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
    });
  }

  /** Connects; the client keeps its own side open after the server's FIN, as an attacker would. */
  static async open(port: number, options: { localAddress?: string } = {}): Promise<RawClient> {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true, ...options });
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  /** A client that never reads: nothing it is sent leaves the kernel's buffers. */
  static async nonReading(port: number): Promise<RawClient> {
    const client = await RawClient.open(port);
    client.socket.pause();
    return client;
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** Status code and body of the first response received: parsed when JSON, text otherwise. */
  response(): { status: number; headers: string; body: unknown } {
    const text = this.text;
    const split = text.indexOf('\r\n\r\n');
    const head = text.slice(0, split);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    const raw = text.slice(split + 4, split + 4 + length);
    const json = /\r\ncontent-type: *application\/json/i.test(head);
    return { status, headers: head, body: raw === '' ? undefined : json ? JSON.parse(raw) : raw };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling every 20 ms; fails with `what` after `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}
