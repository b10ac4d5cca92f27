import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  CLI,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { runCli } from '../../../src/cli/run-cli.js';
import {
  openTokenAdministration,
  openWebhookAdministration,
} from '../../../src/composition/open-administration.js';

const TOKEN = `webhook-processes-${randomUUID()}`;
const FAST = {
  PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
  PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '50ms,100ms,200ms',
  PLANT_STORE_WEBHOOK_POLL: '50ms',
  PLANT_STORE_WEBHOOK_TIMEOUT: '1s',
  PLANT_STORE_WEBHOOK_CACHE: '50ms',
  PLANT_STORE_WEBHOOK_LEASE: '3s',
  PLANT_STORE_WEBHOOK_TENANT_CONCURRENCY: '32',
};

/** POST /plants as a caller would, the id written into the JSON text. */
const create = (service: ServiceProcess, tenant: string, id: bigint): Promise<Response> =>
  fetch(`http://127.0.0.1:${service.port}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}-${tenant}`, 'Content-Type': 'application/json' },
    body: `{"id":${id},"name":"plant ${id}"}`,
  });

/** The storages, each with the environment of a service on it; undefined when its server is missing. */
interface Storage {
  name: string;
  env: (context: Mocha.Context) => Promise<Record<string, string> | undefined>;
  dispose: () => Promise<void>;
  /** How many creates two instances share. */
  shared: number;
}

function storages(): Storage[] {
  let directory = '';
  let redisClose: (() => Promise<void>) | undefined;
  let mongo: MongoServer | undefined;
  return [
    {
      // Two processes on one data directory share it, as two instances on Redis do.
      name: 'lmdb (the default)',
      shared: 200,
      env: async () => {
        directory = mkdtempSync(join(tmpdir(), 'plant-store-webhook-processes-'));
        return { PLANT_STORE_DATA_DIR: join(directory, 'data') };
      },
      dispose: async () => rmSync(directory, { recursive: true, force: true }),
    },
    {
      name: 'Redis',
      shared: 1000,
      env: async (context) => {
        const started = await startRedisServer();
        if (typeof started === 'string') {
          serverMissing(context, 'Redis', started);
          return undefined;
        }
        redisClose = started.close;
        return { PLANT_STORE_STORAGE: 'redis', REDIS_URL: started.url };
      },
      dispose: async () => redisClose?.(),
    },
    {
      name: 'MongoDB (FerretDB when no mongod)',
      // FerretDB's SQLite backend scans the whole collection for every query and write (no
      // filter pushdown: 0.3-0.5 s each at 3000 plants here), so fewer creates keep this in time.
      shared: 200,
      env: async (context) => {
        const started = await startMongoServer();
        if (typeof started === 'string') {
          serverMissing(context, 'MongoDB', started);
          return undefined;
        }
        mongo = started;
        return { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: started.url };
      },
      dispose: async () => mongo?.dispose(),
    },
  ];
}

for (const storage of storages()) {
  describe(`Webhooks as processes on ${storage.name}`, function () {
    this.timeout(60_000);
    const tenants = ['crash', 'pair', 'cli', 'split'];
    let env: Record<string, string>;
    let receiver: WebhookReceiver;
    const services: ServiceProcess[] = [];

    const start = async (): Promise<ServiceProcess> => {
      const service = await startService(env);
      services.push(service);
      return service;
    };
    /** `plant-store webhooks ...` in this process (the spawned program is tested once, below). */
    const webhooks = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
      const code = await runCli(['webhooks', ...args], env, io, {
        serve: async () => {},
        openTokenAdministration,
        openWebhookAdministration,
      });
      return { code, stdout: out.map((line) => `${line}\n`).join(''), stderr: err.join('\n') };
    };

    /** Subscribes the receiver through the CLI; resolves the secret it printed once. */
    const subscribe = async (tenant: string): Promise<string> => {
      const added = await webhooks('add', '--tenant', tenant, '--url', receiver.url);
      expect(added.code, added.stderr).to.equal(0);
      return added.stdout.trim();
    };

    before(async function () {
      const storageEnv = await storage.env(this);
      const tokens = tenants.map((tenant) => ({
        token: `${TOKEN}-${tenant}`,
        tenant,
        scopes: ['plants:read', 'plants:write'],
      }));
      env = { ...storageEnv, ...FAST, PLANT_STORE_TOKENS: JSON.stringify(tokens) };
    });
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
    });
    afterEach(async () => {
      await Promise.all(services.splice(0).map((service) => service.stop()));
      await receiver.close();
    });
    after(async () => storage.dispose());

    it('when the service is killed with SIGKILL right after answering 200, then a restarted service delivers the event', async () => {
      receiver.secrets.push(await subscribe('crash'));
      await receiver.shut(); // nothing can be delivered before the kill
      const first = await start();
      const created = await create(first, 'crash', 2n ** 53n + 1n);
      await first.kill();
      expect(created.status).to.equal(200);

      await receiver.reopen();
      await start();
      await receiver.until((received) => received.length >= 1, 20_000);

      expect(receiver.received[0]!.body).to.equal(
        '{"id":9007199254740993,"name":"plant 9007199254740993"}',
      );
      expect(receiver.received[0]!.secret).to.equal(0);
    });

    if (storage.shared > 0) {
      it(`when two instances share the store and take ${storage.shared} creates, then every event arrives at least once`, async () => {
        receiver.secrets.push(await subscribe('pair'));
        const pair = await Promise.all([start(), start()]);
        const ids = Array.from({ length: storage.shared }, (_, i) => BigInt(i) * 7919n - 2n ** 62n);
        let unavailable = 0;
        // A caller tries a 503 again; a 409 then means the first try was stored after all (a
        // store past its deadline may still finish), and its event with it.
        const acknowledged = async (id: bigint, service: ServiceProcess): Promise<void> => {
          for (let tries = 0; ; tries++) {
            const answer = await create(service, 'pair', id);
            if (answer.status === 200 || (answer.status === 409 && tries > 0)) return;
            expect(answer.status).to.equal(503);
            unavailable++;
          }
        };
        for (let i = 0; i < ids.length; i += 20) {
          await Promise.all(
            ids.slice(i, i + 20).map((id, j) => acknowledged(id, pair[(i + j) % 2]!)),
          );
        }
        await receiver.until(
          (received) => new Set(received.map((r) => r.body)).size >= ids.length,
          30_000,
        );

        const bodies = receiver.received.map((delivery) => delivery.body);
        const expected = ids.map((id) => `{"id":${id},"name":"plant ${id}"}`);
        expect(new Set(bodies)).to.deep.equal(new Set(expected));
        expect(receiver.received.every((delivery) => delivery.secret === 0)).to.equal(true);
        const duplicates = bodies.length - new Set(bodies).size;
        const sameId =
          new Set(receiver.received.map((r) => `${r.id} ${r.body}`)).size === new Set(bodies).size;
        console.log(
          `      ${storage.name}: ${ids.length} events, ${bodies.length} deliveries, ${duplicates} duplicates, ${unavailable} creates answered 503 and tried again`,
        );
        expect(sameId, 'duplicates carry the webhook-id of their event').to.equal(true);
      });
    }

    if (storage.shared > 0) {
      it('when an instance does not deliver (PLANT_STORE_WEBHOOK_DELIVER=false), then another instance delivers what it recorded', async () => {
        receiver.secrets.push(await subscribe('split'));
        const recorder = await startService({ ...env, PLANT_STORE_WEBHOOK_DELIVER: 'false' });
        services.push(recorder);
        const ids = Array.from({ length: 20 }, (_, i) => BigInt(i) + 1n);
        for (const id of ids) expect((await create(recorder, 'split', id)).status).to.equal(200);
        // Several polls of the FAST settings: nothing leaves the recording instance.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(receiver.received).to.have.length(0);

        await start();
        await receiver.until(
          (received) => new Set(received.map((r) => r.body)).size >= ids.length,
          30_000,
        );
        expect(new Set(receiver.received.map((r) => r.body))).to.deep.equal(
          new Set(ids.map((id) => `{"id":${id},"name":"plant ${id}"}`)),
        );
      });
    }

    it('when an operator uses `plant-store webhooks`, then list shows failures and rotate, disable, enable and remove act', async () => {
      const secret = await subscribe('cli');
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const listed = JSON.parse((await webhooks('list', '--tenant', 'cli', '--json')).stdout) as {
        id: string;
        secret?: string;
        enabled: boolean;
      }[];
      expect(listed).to.have.length(1);
      expect(listed[0]).to.not.have.property('secret');
      const { id } = listed[0]!;
      const table = await webhooks('list');
      expect(table.stdout).to.include(id).and.not.include(secret);

      const rotated = await webhooks('rotate-secret', id);
      expect(rotated.code).to.equal(0);
      expect(rotated.stdout.trim())
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      expect((await webhooks('disable', id)).code).to.equal(0);
      const disabled = JSON.parse((await webhooks('list', '--json')).stdout) as {
        enabled: boolean;
      }[];
      expect(disabled.find((s) => (s as { id?: string }).id === id)?.enabled).to.equal(false);
      expect((await webhooks('enable', id)).code).to.equal(0);
      expect((await webhooks('remove', id)).code).to.equal(0);
      const gone = await webhooks('remove', id);
      expect(gone.code).to.equal(3);
    });

    if (storage.name.startsWith('lmdb')) {
      it('when the real program is refused a URL, then it exits 2 naming the rule', async () => {
        const refused = await runProgram(
          [...CLI, 'webhooks', 'add', '--tenant', 'cli', '--url', 'http://127.0.0.1:1/x'],
          { ...env, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'false' },
        );
        expect(refused.code).to.equal(2);
        expect(refused.stderr).to.match(/^plant-store: the URL must use https/);
      });
    }
  });
}
