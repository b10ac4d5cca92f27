import { expect } from 'chai';
import { send, type HttpResponse } from './http-client.js';
import { expectError } from './http-harness.js';
import { CLI, runProgram, startService, type ServiceProcess } from './service-process.js';

/** Runs `plant-store <args>` to its end. */
export const plantStore = (args: string[], env: Record<string, string>) =>
  runProgram([...CLI, ...args], env);

export const TOKEN_SHAPE = /^pst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;

export interface CliStorage {
  /** The environment that selects the storage, for the server and the command alike. */
  env: Record<string, string>;
  dispose(): Promise<void> | void;
}

/**
 * The operator's path through the real program, on one storage: issue with `tokens create`, use
 * over HTTP against `plant-store serve`, `tokens list`, `tokens revoke`, then 401 within the bound.
 * `storage` may skip via serverMissing.
 */
export function describeTokenLifecycle(
  name: string,
  storage: (context: Mocha.Context) => Promise<CliStorage>,
  options: { expiry?: boolean } = {},
): void {
  describe(`plant-store tokens and serve (the real program, ${name} storage)`, function () {
    // A server and several commands start through tsx (seconds each on two loaded cores).
    this.timeout(120_000);
    let env: Record<string, string>;
    let dispose: CliStorage['dispose'] | undefined;
    let server: ServiceProcess | undefined;
    // The stated revocation bound: the token cache's lifetime, 5 s unless the storage's env says.
    const boundMs = () => Number(env.PLANT_STORE_TOKEN_CACHE_SECONDS ?? 5) * 1000;

    before(async function () {
      ({ env, dispose } = await storage(this));
      server = await startService(env, [...CLI, 'serve']);
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    const call = (
      method: string,
      path: string,
      token: string,
      body?: string,
    ): Promise<HttpResponse> =>
      send(server!.port, method, path, {
        headers: [
          ['Authorization', `Bearer ${token}`],
          ...(body === undefined
            ? []
            : ([['Content-Type', 'application/json']] as [string, string][])),
        ],
        ...(body !== undefined && { body }),
      });

    async function create(...args: string[]): Promise<string> {
      const { code, stdout, stderr } = await plantStore(['tokens', 'create', ...args], env);
      expect(code, stderr).to.equal(0);
      expect(stdout.trim()).to.match(TOKEN_SHAPE);
      return stdout.trim();
    }

    it('when a token is created, used, listed and revoked, then it works until revoked and answers 401 within the bound', async () => {
      const tenant = `cli-${Date.now()}`;
      const token = await create(
        '--tenant',
        tenant,
        '--scope',
        'plants:read',
        '--scope',
        'plants:write',
        '--name',
        'ci job',
      );

      const created = await call('POST', '/plants', token, '{"id":7,"name":"Fern"}');
      const listed = await call('GET', '/plants', token);
      expect([created.status, listed.text]).to.deep.equal([200, '[{"name":"Fern"}]']);

      const list = await plantStore(['tokens', 'list', '--tenant', tenant, '--json'], env);
      expect(list.code).to.equal(0);
      expect(list.stdout).to.not.include(token.slice(21));
      const [entry] = JSON.parse(list.stdout) as Record<string, unknown>[];
      expect(entry).to.include({
        id: token.slice(4, 20),
        name: 'ci job',
        tenant,
        status: 'active',
      });
      expect(entry).to.not.have.property('digest');
      expect(entry!.lastUsedAt).to.be.a('string');

      const revoked = await plantStore(['tokens', 'revoke', token.slice(4, 20)], env);
      const revokedAt = Date.now();
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(revoked.stdout).to.include(`servers refuse it within ${boundMs() / 1000} s`);
      // A request the server admits was sent before its cached entry expired, at most the bound
      // after the revocation: timed when sent, so that a slow answer on a loaded machine is not
      // counted against the server.
      let lastAdmitted = revokedAt;
      let sentAt = Date.now();
      let response = await call('GET', '/plants', token);
      while (response.status === 200) {
        lastAdmitted = sentAt;
        if (Date.now() - revokedAt > boundMs() + 2000) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
        sentAt = Date.now();
        response = await call('GET', '/plants', token);
      }
      expect(lastAdmitted - revokedAt, 'admitted after the bound').to.be.at.most(boundMs());
      expectError(response, 401, 40102);
      const after = await plantStore(['tokens', 'list', '--tenant', tenant, '--json'], env);
      expect(JSON.parse(after.stdout)[0]).to.include({ status: 'revoked' });
    });

    // Real seconds pass here, so storages whose dates the contract suite already checks skip it.
    if (options.expiry) {
      it('when a token expires, then it answers 401 40102 and is listed as expired', async () => {
        const tenant = `cli-expiry-${Date.now()}`;
        const token = await create(
          '--tenant',
          tenant,
          '--scope',
          'plants:read',
          '--expires-in',
          '2s',
        );
        const fresh = await call('GET', '/plants', token);

        await new Promise((resolve) => setTimeout(resolve, 2100));
        const stale = await call('GET', '/plants', token);

        expect(fresh.status).to.equal(200);
        expectError(stale, 401, 40102);
        const list = await plantStore(['tokens', 'list', '--tenant', tenant, '--json'], env);
        expect(JSON.parse(list.stdout)[0]).to.include({ status: 'expired' });
      });
    }
  });
}
