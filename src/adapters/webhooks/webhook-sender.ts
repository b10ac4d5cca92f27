import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkReceiverUrl, isPrivateAddress } from './address-policy.js';
import { printableText } from '../../domain/printable-text.js';

/** What one attempt came to; `error` is short and never holds more than the start of an answer. */
export type SendOutcome = { ok: true; status: number } | { ok: false; error: string };

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Sockets kept per receiver host. */
  maxSockets?: number;
  /** How host names are resolved before the address check (tests); the system's by default. */
  resolve?: Resolve;
}

const ERROR_BODY_CHARS = 120;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

// Refuses a host when any of its addresses is not public, on the very addresses connected to:
// a name cannot be re-pointed between the check and the connection.
export function publicOnlyLookup(resolve: Resolve = dnsLookup as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || addresses.some((entry) => isPrivateAddress(entry.address))) {
        const denied = new Error(`${hostname} resolves to a non-public address`);
        return callback(denied as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Sends deliveries signed per Standard Webhooks; no redirect followed, one deadline, 2xx only. */
export class WebhookSender {
  private readonly agents: { http: HttpAgent; https: HttpsAgent };
  private readonly lookup: LookupFunction;

  constructor(private readonly options: SenderOptions) {
    const agent = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
    this.agents = { http: new HttpAgent(agent), https: new HttpsAgent(agent) };
    this.lookup = publicOnlyLookup(options.resolve);
  }

  async send(
    url: string,
    secret: string,
    message: { eventId: string; body: string },
    now = new Date(),
  ): Promise<SendOutcome> {
    const refusal = checkReceiverUrl(url, this.options.allowPrivate);
    if (refusal !== undefined) return { ok: false, error: refusal };
    // A Standard Webhooks secret: `whsec_` and base64, the bytes `standardwebhooks` signs with.
    const key = secret.replace(/^whsec_/, '');
    if (key.length % 4 !== 0 || !BASE64.test(key)) {
      return { ok: false, error: 'the signing secret is not valid base64' };
    }
    const { eventId, body } = message;
    const seconds = Math.floor(now.getTime() / 1000);
    // `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, as Standard Webhooks defines it.
    const mac = createHmac('sha256', Buffer.from(key, 'base64'))
      .update(`${eventId}.${seconds}.${body}`)
      .digest('base64');
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'plant-store-webhooks',
      'webhook-id': eventId,
      'webhook-timestamp': String(seconds),
      'webhook-signature': `v1,${mac}`,
      'content-length': String(Buffer.byteLength(body)),
    };
    return this.post(new URL(url), headers, body).catch((error: unknown) => {
      const { code, message } = error as { code?: unknown; message?: unknown };
      const text = typeof message === 'string' ? message : String(error);
      const described =
        typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
      return { ok: false, error: printableText(described) };
    });
  }

  private post(url: URL, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const https = url.protocol === 'https:';
    const { timeoutMs, allowPrivate } = this.options;
    return new Promise((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        headers,
        agent: https ? this.agents.https : this.agents.http,
        ...(!allowPrivate && { lookup: this.lookup }),
      });
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      req.once('error', fail);
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        let excerpt = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          // Only the start of a failure's answer is kept, for `webhooks list`; the rest is drained.
          if (status >= 300 && excerpt.length < ERROR_BODY_CHARS) excerpt += chunk;
        });
        res.once('end', () => {
          clearTimeout(timer);
          if (status >= 200 && status < 300) return resolve({ ok: true, status });
          // Line breaks and tabs become one space; any other control a receiver sends is escaped,
          // so that it cannot rewrite the terminal of whoever runs `webhooks list`.
          const clean = excerpt.replace(/\s+/g, ' ').trim();
          const kept =
            clean.length > ERROR_BODY_CHARS ? `${clean.slice(0, ERROR_BODY_CHARS)}...` : clean;
          resolve({ ok: false, error: `HTTP ${status}${kept && `: ${printableText(kept)}`}` });
        });
        res.once('error', fail);
      });
      req.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
