import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { send, type HttpResponse } from '../../support/http-client.js';
import { startStoppableMongo } from '../../support/mongo-server.js';
import { sampleValue, parsePrometheus } from '../../support/prometheus-text.js';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { startService, type ServiceProcess } from '../../support/service-process.js';

// Low limits, so that a second or two of requests shows whether two processes enforce one.
const RATE = 20;
const BUDGET = 8;
const TOKEN = `shared-${randomUUID()}`;
// Reads /metrics from a tenant of its own, whose limit the tenant under test never uses up.
const METRICS_TOKEN = `metrics-${randomUUID()}`;
const FALLBACK = /the limiter store does not answer; limiting in this process meanwhile/;
const RECOVERED = /the limiter store answers again/;

/** A store two service processes share, which a test may take away. */
interface SharedStore {
  env: Record<string, string>;
  /** The store stops answering (frozen or stopped). */
  outage(): Promise<void>;
  /** It answers again. */
  back(): Promise<void>;
  dispose(): Promise<void>;
}

const STORES: [string, (context: Mocha.Context) => Promise<SharedStore | undefined>][] = [
  [
    'Redis (frozen by SIGSTOP)',
    async (context) => {
      const redis = await startRedisServer();
      if (typeof redis === 'string') {
        serverMissing(context, 'Redis', redis);
        return undefined;
      }
      return {
        env: { PLANT_STORE_STORAGE: 'redis', REDIS_URL: redis.url },
        outage: async () => redis.server.pause(),
        back: async () => redis.server.resume(),
        dispose: () => redis.close(),
      };
    },
  ],
  [
    'MongoDB (stopped)',
    async (context) => {
      const mongo = await startStoppableMongo(context);
      return {
        env: { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: mongo.url },
        outage: () => mongo.stop!(),
        back: () => mongo.start!(),
        dispose: () => mongo.dispose(),
      };
    },
  ],
];

const get = (service: ServiceProcess, path: string, headers: [string, string][] = []) =>
  send(service.port, 'GET', path, { headers });
const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
const code = (response: HttpResponse): unknown =>
  (JSON.parse(response.text) as { error: unknown }).error;

for (const [name, provide] of STORES) {
  describe(`two service processes on one ${name}: one tenant limit, one failure budget`, function () {
    // Two processes start through tsx on two shared cores.
    this.timeout(120_000);
    let store: SharedStore | undefined;
    let a: ServiceProcess;
    let b: ServiceProcess;

    before(async function () {
      store = await provide(this);
      const env = {
        ...store!.env,
        PLANT_STORE_RATE_LIMIT: String(RATE),
        PLANT_STORE_AUTH_FAILURE_LIMIT: String(BUDGET),
        // Each test names its client address in X-Forwarded-For, so that budgets never meet.
        PLANT_STORE_TRUST_PROXY: '1',
        // The recovery line is an info one.
        LOG_LEVEL: 'info',
        PLANT_STORE_ACCESS_LOG: 'off',
        PLANT_STORE_TOKENS: JSON.stringify([
          { token: TOKEN, tenant: `t-${randomUUID()}`, scopes: ['plants:read', 'metrics:read'] },
          { token: METRICS_TOKEN, tenant: `m-${randomUUID()}`, scopes: ['metrics:read'] },
        ]),
      };
      [a, b] = await Promise.all([startService(env), startService(env)]);
    });
    after(async () => {
      await store?.back().catch(() => {});
      await Promise.all([a?.stop(), b?.stop()]);
      await store?.dispose();
    });

    it('when a tenant sends as fast as it can to both alternately, then it gets one service’s limit (burst plus rate times the time, within 25%)', async () => {
      const started = Date.now();
      const statuses: number[] = [];
      let refused: HttpResponse | undefined;
      // Two at a time (one to each), for 2 s and until some window saw more than the rate: a
      // loaded machine may answer fewer than RATE a second one after another.
      while (
        Date.now() - started < 2000 ||
        (refused === undefined && Date.now() - started < 20_000)
      ) {
        const pair = await Promise.all(
          [a, b].map((service) => get(service, '/plants', [bearer(TOKEN)])),
        );
        for (const response of pair) {
          statuses.push(response.status);
          if (response.status !== 200) refused ??= response;
        }
      }
      const seconds = (Date.now() - started) / 1000;
      const admitted = statuses.filter((status) => status === 200).length;

      const oneService = RATE + RATE * seconds;
      expect(admitted).to.be.at.most(oneService * 1.25);
      // However the windows fell, none held more than RATE of the first RATE.
      expect(statuses.slice(0, RATE)).to.deep.equal(Array(RATE).fill(200));
      expect(refused?.status).to.equal(429);
      expect(code(refused!)).to.equal(42901);
      expect(refused!.headers['retry-after']).to.match(/^[1-9]\d*$/);
    });

    it('when an address fails authentication against both, then both refuse it 429 42902 after one service’s budget (within 25%)', async () => {
      let statuses: number[] = [];
      let refused: HttpResponse | undefined;
      // Decisions handed to a process's own limiter because the store was late (its deadline),
      // counted by both services.
      const fallbacks = async (): Promise<number> => {
        let sum = 0;
        for (const service of [a, b]) {
          const response = await get(service, '/metrics', [bearer(METRICS_TOKEN)]);
          expect(response.status).to.equal(200);
          const samples = parsePrometheus(response.text);
          sum += sampleValue(samples, 'plant_store_limiter_fallbacks_total', {
            limit: 'auth_failures',
          });
        }
        return sum;
      };
      // One window of the budget (1 s) must hold the sequence, and the store must have decided
      // each request in time: a sequence a loaded machine made longer, or one with a decision a
      // slow store handed to one process, proves nothing, so it is sent again from another
      // address (at once, the stores would be asked concurrently).
      for (let attempt = 1; attempt <= 5; attempt++) {
        const before = await fallbacks();
        const from: [string, string] = ['X-Forwarded-For', `192.0.2.${attempt}`];
        const started = Date.now();
        statuses = [];
        refused = undefined;
        for (let i = 0; i < BUDGET * 3; i++) {
          const headers = [bearer('made-up-0123'), from];
          const response = await get(i % 2 === 0 ? a : b, '/plants', headers);
          statuses.push(response.status);
          if (response.status === 429) refused ??= response;
        }
        if (Date.now() - started < 1000 && (await fallbacks()) === before) break;
      }

      const failures = statuses.filter((status) => status === 401).length;
      expect(failures).to.be.within(BUDGET, BUDGET * 1.25);
      expect(statuses.slice(-4)).to.deep.equal([429, 429, 429, 429]);
      expect(code(refused!)).to.equal(42902);
      expect(refused!.headers['retry-after']).to.match(/^[1-9]\d*$/);
    });

    it('when the store stops answering, then both keep answering, limit in process, log the fallback once and count it; and share again once it is back', async () => {
      await sleep(1100); // the tenant's window of the first test ends
      await store!.outage();

      const answers = await Promise.all(
        Array.from({ length: RATE + 10 }, (_, i) => get(i < 5 ? b : a, '/plants', [bearer(TOKEN)])),
      );

      const statuses = new Set(answers.map((response) => response.status));
      // Admitted requests meet the stopped store (503); the in-process limit refuses the rest.
      expect([...statuses].sort()).to.deep.equal([429, 503]);
      expect(answers.filter((response) => response.status === 429).length).to.be.at.least(5);
      expect((await get(a, '/healthz')).status).to.equal(200);
      for (const service of [a, b]) await service.waitFor(FALLBACK);
      expect(a.output().match(new RegExp(FALLBACK, 'g'))).to.have.length(1);
      await sleep(1100);
      const metrics = parsePrometheus((await get(a, '/metrics', [bearer(TOKEN)])).text);
      expect(
        sampleValue(metrics, 'plant_store_limiter_fallbacks_total', { limit: 'tenant' }),
      ).to.be.at.least(RATE);

      await store!.back();
      const deadline = Date.now() + 30_000;
      while (!RECOVERED.test(a.output()) && Date.now() < deadline) {
        await get(a, '/plants', [bearer(TOKEN)]);
        await sleep(200);
      }
      expect(a.output()).to.match(RECOVERED);
    });
  });
}
