import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../src/adapters/auth/static-token-verifier.js';
import { MemoryTokenStore } from '../../src/adapters/storage/memory/memory-token-store.js';
import { openTokenAdministration } from '../../src/composition/open-administration.js';
import { PlantError } from '../../src/domain/errors.js';
import { buildService, loadConfig, TYPES, type Service } from '../../src/index.js';
import { send } from '../support/http-client.js';

const unavailable = () =>
  Promise.reject(new PlantError('storage-unavailable', 'down for the test'));

describe('the container wiring', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-wiring-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PLANT_STORE_TOKEN_FILE: join(directory, 'tokens.json'),
  });
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
  });
});
