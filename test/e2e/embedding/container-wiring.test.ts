import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../../src/adapters/auth/static-token-verifier.js';
import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { openTokenAdministration } from '../../../src/composition/open-administration.js';
import { PlantError } from '../../../src/domain/errors.js';
import { buildService, loadConfig, TYPES, type Service } from '../../../src/index.js';
import { freePort } from '../../support/free-port.js';
import { send } from '../../support/http-client.js';
import { CLI, runProgram } from '../../support/service-process.js';

const unavailable = () =>
  Promise.reject(new PlantError('storage-unavailable', 'down for the test'));

describe('the container wiring', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-wiring-'));
  // The default storage in a directory of its own: the CLI's administrations share it.
  const config = loadConfig({ LOG_LEVEL: 'silent', PLANT_STORE_DATA_DIR: join(directory, 'data') });
  after(() => rmSync(directory, { recursive: true, force: true }));

  describe('readiness: the named checks bound in the container', () => {
    let service: Service | undefined;
    let server: Server | undefined;
    afterEach(async () => {
      server?.closeAllConnections();
      server?.close();
      await service?.close();
    });

    async function readyz(configure: Parameters<typeof buildService>[1]) {
      service = await buildService(config, configure);
      server = createServer(service.app.callback()).listen(0, '127.0.0.1');
      await once(server, 'listening');
      return send((server.address() as { port: number }).port, 'GET', '/readyz');
    }

    it('when an embedder binds its own verifier, then /readyz still asks the token store, by name', async () => {
      const tokenStore = new MemoryTokenStore();
      tokenStore.ping = unavailable;

      const answer = await readyz((container) => {
        container.rebind(TYPES.TokenVerifier).toConstantValue(new StaticTokenVerifier([]));
        container.rebind(TYPES.TokenStore).toConstantValue(tokenStore);
      });

      expect(answer.status).to.equal(503);
      expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(JSON.parse(answer.text)).to.deep.equal({
        error: 50301,
        message: 'down for the test',
        failing: ['tokens'],
      });
    });

    it('when an embedder binds its own list of checks, then /readyz asks those and names the failing one', async () => {
      const answer = await readyz((container) => {
        container.rebind(TYPES.ReadinessChecks).toConstantValue([
          { name: 'plants', ping: () => Promise.resolve() },
          { name: 'search-index', ping: unavailable },
        ]);
      });

      expect(answer.status).to.equal(503);
      expect(JSON.parse(answer.text)).to.deep.equal({
        error: 50301,
        message: 'down for the test',
        failing: ['search-index'],
      });
    });
  });

  describe("the CLI's administration: the container modules serve loads", () => {
    it('when a binding of those modules is rebound, then the tokens administration resolves with it', async () => {
      const issuedAt = new Date('2031-02-03T04:05:06.000Z');

      const opened = await openTokenAdministration(config, (container) => {
        container.rebind(TYPES.Clock).toConstantValue(() => issuedAt);
      });
      let issued;
      try {
        issued = await opened.tokenAdministration.issue({
          tenant: 'wired',
          scopes: ['plants:read'],
        });
      } finally {
        await opened.close();
      }
      const again = await openTokenAdministration(config);
      let listed;
      try {
        listed = await again.tokenAdministration.list('wired');
      } finally {
        await again.close();
      }

      expect(issued.summary.createdAt).to.deep.equal(issuedAt);
      expect(listed.map((token) => [token.id, token.createdAt])).to.deep.equal([
        [issued.summary.id, issuedAt],
      ]);
    });

    it('when Redis cannot be reached, then the tokens and webhooks commands (the real program) each give up after the same 2 s wait', async function () {
      // Each case is a process started through tsx on shared cores.
      this.timeout(60_000);
      const env = {
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      };

      const outcomes = [];
      for (const command of [
        ['tokens', 'list'],
        ['webhooks', 'list'],
      ]) {
        const started = Date.now();
        const { code, stdout, stderr } = await runProgram([...CLI, ...command], env);
        outcomes.push({ command: command[0], code, stdout, stderr, ms: Date.now() - started });
      }

      for (const { command, code, stdout, stderr, ms } of outcomes) {
        expect(code, `${command}: ${stderr}`).to.equal(1);
        expect(stdout, command).to.equal('');
        expect(stderr.trim().split('\n'), command).to.have.length(1);
        expect(stderr, command).to.match(/^plant-store: .*REDIS_URL/);
        // The 2 s wait, plus starting tsx on busy cores; well short of the service's 30 s.
        expect(ms, command).to.be.below(20_000);
      }
    });
  });
});
