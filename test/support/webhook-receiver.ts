import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver saw it; `secret` is the index of the secret that verified it, or -1. */
export interface Received {
  id: string;
  timestamp: string;
  body: string;
  secret: number;
}

export type ReceiverMode = 'ok' | 'fail' | 'hang';

/**
 * A webhook receiver on loopback that verifies every delivery with the `standardwebhooks` package,
 * as docs/webhooks.md tells receivers to, against each known secret in turn; it records
 * everything, verified or not. It can answer 500, hang, or be closed (connection refused).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  mode: ReceiverMode = 'ok';
  /** Requests answered with anything but 2xx, or left hanging. */
  refused = 0;
  /** The webhook-id of every request, answered or not, in arrival order. */
  readonly ids: string[] = [];
  private server: Server;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly port: number,
    public secrets: string[],
  ) {
    this.server = this.makeServer();
  }

  static async start(secrets: string[] = [], port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(port, secrets);
    await receiver.listen(port);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  private makeServer(): Server {
    return createServer((req, res) => void this.handle(req, res));
  }

  private async listen(port: number): Promise<void> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    (this as { port: number }).port = (this.server.address() as { port: number }).port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.ids.push(String(req.headers['webhook-id']));
    if (this.mode === 'hang') {
      this.refused++;
      return; // never answers; the sender's timeout ends it
    }
    if (this.mode === 'fail') {
      this.refused++;
      res.writeHead(500).end('receiver failing on purpose '.repeat(40));
      return;
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    const secret = this.secrets.findIndex((key) => {
      try {
        // jsonParse off: the body is checked as text, so ids beyond 2^53 stay exact.
        new Webhook(key).verify(body, headers, { jsonParse: false });
        return true;
      } catch {
        return false;
      }
    });
    this.received.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      body,
      secret,
    });
    res.writeHead(secret === -1 ? 401 : 204).end();
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `predicate` holds for what was received; rejects after `ms`. */
  async until(predicate: (received: Received[]) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(
          `receiver: condition not met after ${ms} ms (${this.received.length} received)`,
        );
      }
      await Promise.race([new Promise<void>((wake) => this.waiters.push(wake)), sleep(50)]);
    }
  }

  /** Closes the listener: deliveries meet a refused connection until `reopen`. */
  async shut(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async reopen(): Promise<void> {
    this.server = this.makeServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.shut();
  }
}
