import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/run-cli.js';
import {
  openTokenAdministration,
  openWebhookAdministration,
} from '../../../src/composition/open-administration.js';
import { eventually } from '../../support/raw-client.js';
import { startService, type ServiceProcess } from '../../support/service-process.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const TIMEOUT_MS = 5000;
const TENANTS = ['stuck', 'waiting'];

describe('Webhook delivery slots shared between tenants (lmdb storage)', function () {
  this.timeout(60_000);
  let directory: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  const receivers: WebhookReceiver[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-webhook-share-'));
    env = {
      PLANT_STORE_DATA_DIR: join(directory, 'data'),
      PLANT_STORE_TOKENS: JSON.stringify(
        TENANTS.map((tenant) => ({
          token: `share-token-for-${tenant}`,
          tenant,
          scopes: ['plants:write', 'metrics:read'],
        })),
      ),
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      PLANT_STORE_WEBHOOK_CONCURRENCY: '8',
      PLANT_STORE_WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
      PLANT_STORE_WEBHOOK_POLL: '50ms',
      PLANT_STORE_WEBHOOK_CACHE: '50ms',
      PLANT_STORE_WEBHOOK_LEASE: '30s',
    };
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    rmSync(directory, { recursive: true, force: true });
  });

  const subscribe = async (tenant: string, receiver: WebhookReceiver) => {
    const err: string[] = [];
    const code = await runCli(
      ['webhooks', 'add', '--tenant', tenant, '--url', receiver.url],
      env,
      { out: () => {}, err: (line) => err.push(line) },
      { serve: async () => {}, openTokenAdministration, openWebhookAdministration },
    );
    expect(code, err.join('\n')).to.equal(0);
  };
  const create = async (tenant: string, id: number) => {
    const response = await fetch(`http://127.0.0.1:${service!.port}/plants`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer share-token-for-${tenant}`,
        'Content-Type': 'application/json',
      },
      body: `{"id":${id},"name":"plant ${id}"}`,
    });
    expect(response.status).to.equal(200);
  };

  /** Tenant `stuck`'s receiver accepts and never answers, `waiting`'s answers; then the service starts. */
  const stuckAndWaiting = async () => {
    const stuck = await WebhookReceiver.start();
    stuck.mode = 'hang';
    const waiting = await WebhookReceiver.start();
    receivers.push(stuck, waiting);
    await subscribe('stuck', stuck);
    await subscribe('waiting', waiting);
    const started = await startService(env);
    service = started;
    return { stuck, waiting, served: started };
  };

  it('when one tenant’s receiver never answers, then another tenant’s delivery is not held behind it (8 slots)', async () => {
    const { stuck, waiting } = await stuckAndWaiting();

    for (let id = 1; id <= 12; id++) await create('stuck', id);
    // The stuck tenant holds all the slots it may have (all 8 before its share was bounded).
    await eventually(() => stuck.ids.length >= 4, 3000, 'the stuck receiver holding deliveries');
    const started = Date.now();
    await create('waiting', 100);
    await eventually(() => waiting.received.length === 1, TIMEOUT_MS * 2, 'the other delivery');
    const waitedMs = Date.now() - started;

    expect(waitedMs, 'ms the other tenant’s delivery waited').to.be.below(TIMEOUT_MS / 2);
    expect(new Set(stuck.ids).size, 'deliveries the stuck receiver holds').to.equal(4);
  });

  it('when one tenant has 1,200 deliveries due behind a receiver that never answers, then another tenant’s is delivered at once, and the stuck backlog is cut to its bound', async () => {
    env.PLANT_STORE_WEBHOOK_TENANT_BACKLOG = '1000';
    const { stuck, waiting, served } = await stuckAndWaiting();

    // More due than a claim once looked at beyond its free slots (1,000): the later tenant's one
    // was never reached.
    for (let first = 1; first <= 1200; first += 40) {
      await Promise.all(Array.from({ length: 40 }, (_, i) => create('stuck', first + i)));
    }
    await eventually(() => stuck.ids.length >= 4, 3000, 'the stuck receiver holding deliveries');
    const started = Date.now();
    await create('waiting', 10_000);
    await eventually(() => waiting.received.length === 1, TIMEOUT_MS * 2, 'the other delivery');

    expect(Date.now() - started, 'ms the other tenant’s delivery waited').to.be.below(
      TIMEOUT_MS / 2,
    );
    await served.waitFor(
      /"tenant":"stuck","dropped":\d+,"bound":1000,"msg":"webhook deliveries dropped/,
    );
    const metrics = await fetch(`http://127.0.0.1:${served.port}/metrics`, {
      headers: { Authorization: 'Bearer share-token-for-stuck' },
    });
    expect(await metrics.text()).to.match(/^plant_store_webhook_deliveries_dropped_total [1-9]/m);
  });
});
