import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config, type StorageOptions } from '../../src/config/index.js';
import { buildContainer, resolveService, type Service } from '../../src/composition/container.js';
import { TYPES } from '../../src/composition/identifiers.js';
import {
  defaultWebhookConfig,
  type WebhookConfig,
} from '../../src/adapters/webhooks/webhook-config.js';
import type { WebhookAdministration } from '../../src/ports/webhook-administration.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.js';
import type { WebhookSubscriptions } from '../../src/ports/webhook-subscriptions.js';
import { send, type HttpResponse } from './http-client.js';

/** Delays of milliseconds instead of hours, so that retries happen within a test. */
export const FAST_WEBHOOKS: Partial<WebhookConfig> = {
  schedule: { delaysMs: [50, 100, 200], jitter: 0.2, disableAfterMs: 60_000 },
  timeoutMs: 500,
  allowPrivate: true,
  pollMs: 50,
  leaseMs: 2_000,
  cacheMs: 50,
};

/** A temporary directory for the memory storage's webhook files. */
export function webhookFiles(): Pick<WebhookConfig, 'file' | 'outboxFile'> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-'));
  return { file: join(dir, 'webhooks.json'), outboxFile: join(dir, 'webhook-outbox.jsonl') };
}

/** The service in this process (real container and HTTP server), delivering webhooks. */
export class WebhookService {
  readonly tenant = `tenant-${randomUUID()}`;
  /** The service's own webhook administration (`service.webhookAdministration`). */
  readonly admin: WebhookAdministration;

  private constructor(
    private readonly server: Server,
    private readonly service: Service,
    private readonly token: string,
    readonly subscriptions: WebhookSubscriptions,
    readonly outbox: WebhookOutbox,
  ) {
    this.admin = service.webhookAdministration;
  }

  static async start(
    storage: StorageOptions,
    webhooks: Partial<WebhookConfig> = {},
  ): Promise<WebhookService> {
    const token = `test_${randomBytes(18).toString('base64url')}`;
    const tenant = `tenant-${randomUUID()}`;
    const files = webhookFiles();
    const config: Config = {
      ...loadConfig({ PLANT_STORE_TOKEN_FILE: `${files.file}.tokens` }),
      storage,
      staticTokens: [{ token, tenant, scopes: ['plants:read', 'plants:write'] }],
      logLevel: (process.env.TEST_LOG_LEVEL ?? 'silent') as Config['logLevel'],
      webhooks: defaultWebhookConfig({ ...FAST_WEBHOOKS, ...files, ...webhooks }),
    };
    const container = buildContainer(config);
    const service = await resolveService(container);
    await service.opened;
    const server = createServer(service.app.callback());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const opened = await container.get(TYPES.Storage).opened;
    await service.startDelivery();
    const started = new WebhookService(server, service, token, opened.webhooks!, opened.outbox!);
    (started as { tenant: string }).tenant = tenant;
    return started;
  }

  /** POST /plants with the id written as raw JSON text, so that it is sent exactly. */
  create(id: bigint, name: string, tag?: string): Promise<HttpResponse> {
    const port = (this.server.address() as { port: number }).port;
    const tagJson = tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`;
    return send(port, 'POST', '/plants', {
      headers: [
        ['Authorization', `Bearer ${this.token}`],
        ['Content-Type', 'application/json'],
      ],
      body: `{"id":${id},"name":${JSON.stringify(name)}${tagJson}}`,
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await this.service.close();
  }
}
