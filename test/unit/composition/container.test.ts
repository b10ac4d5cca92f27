import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import { PlantError } from '../../../src/domain/errors.js';
import { TokenAdministrator } from '../../../src/application/token-administrator.js';
import { loadConfig, type Config } from '../../../src/config/index.js';
import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { openMemoryStorage } from '../../../src/adapters/storage/memory/open-memory-storage.js';
import { TYPES } from '../../../src/composition/identifiers.js';
import { buildService } from '../../../src/composition/container.js';
import { send } from '../../support/http-client.js';
import { IdentityProvider } from '../../support/identity-provider.js';
import { jwtConfigFor } from '../../support/token-kinds.js';

const STATIC = 'container-static-token-0123456789';

describe('buildService: the default token verifier', () => {
  let provider: IdentityProvider;

  before(async () => {
    provider = await IdentityProvider.start();
  });
  after(async () => {
    await provider.close();
  });

  async function serve(config: Partial<Config>, tokenStore?: MemoryTokenStore) {
    const service = await buildService(
      {
        ...loadConfig({ LOG_LEVEL: 'silent', PLANT_STORE_STORAGE: 'memory' }),
        staticTokens: [{ token: STATIC, tenant: 'wired', scopes: ['plants:read'] }],
        ...config,
      },
      (container) => {
        if (tokenStore) container.rebind(TYPES.TokenStore).toConstantValue(tokenStore);
      },
    );
    const server: Server = createServer(service.app.callback());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const get = (token: string) =>
      send((server.address() as { port: number }).port, 'GET', '/plants', {
        headers: [['Authorization', `Bearer ${token}`]],
      });
    const status = async (token: string) => (await get(token)).status;
    const close = async () => {
      server.closeAllConnections();
      server.close();
      await service.close();
    };
    return { get, status, close, tokens: service.tokenAdministration };
  }

  it('when JWTs are configured, then static, managed and JWT tokens are each accepted', async () => {
    const tokenStore = new MemoryTokenStore();
    const { token: managed } = await new TokenAdministrator(tokenStore).issue({
      tenant: 'wired',
      scopes: ['plants:read'],
    });
    const jwt = await provider.sign({ tenant: 'wired', scope: 'plants:read' });
    const api = await serve({ jwt: jwtConfigFor(provider) }, tokenStore);
    try {
      expect([
        await api.status(STATIC),
        await api.status(managed),
        await api.status(jwt),
      ]).to.deep.equal([200, 200, 200]);
    } finally {
      await api.close();
    }
  });

  it('when JWTs are not configured, then a valid JWT is refused with 401', async () => {
    const jwt = await provider.sign({ tenant: 'wired', scope: 'plants:read' });
    const api = await serve({}, new MemoryTokenStore());
    try {
      expect(await api.status(jwt)).to.equal(401);
      expect(await api.status(STATIC)).to.equal(200);
    } finally {
      await api.close();
    }
  });

  it("when a token is issued through the service's administration, then the service accepts it", async () => {
    const api = await serve({});
    try {
      const { token } = await api.tokens.issue({ tenant: 'wired', scopes: ['plants:read'] });

      expect(await api.status(token)).to.equal(200);
    } finally {
      await api.close();
    }
  });

  it('when the token store cannot be read, then a managed token answers 503 without naming its cause', async () => {
    const broken = new MemoryTokenStore();
    broken.find = async () => {
      const unavailable = new PlantError('storage-unavailable', 'storage is unavailable');
      unavailable.cause = new Error('the store at /secret/path cannot be used');
      throw unavailable;
    };
    const api = await serve({}, broken);
    try {
      const response = await api.get(`pst_0123456789abcdef_${'A'.repeat(43)}`);

      expect([response.status, JSON.parse(response.text)]).to.deep.equal([
        503,
        { error: 50301, message: 'storage is unavailable' },
      ]);
      expect(await api.status(STATIC)).to.equal(200);
    } finally {
      await api.close();
    }
  });
});

describe('buildService: TYPES.StorageOpener', () => {
  it('when an embedder rebinds the opener, then the service opens that storage, not the configured one', async () => {
    const mine = await openMemoryStorage();
    await mine.plants.insert('embedder', { id: 7n, name: 'Fern' });
    const opened: AbortSignal[] = [];
    const service = await buildService(
      loadConfig({
        LOG_LEVEL: 'silent',
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: 'redis://127.0.0.1:1',
      }),
      (container) => {
        container.rebind(TYPES.StorageOpener).toConstantValue((signal) => {
          opened.push(signal);
          return Promise.resolve(mine);
        });
      },
    );
    try {
      await service.opened;
      const page = await service.plants.listPlants(
        { tenant: 'embedder', scopes: ['plants:read'] },
        { limit: 10 },
      );

      expect(opened).to.have.length(1);
      expect(page.plants).to.deep.equal([{ name: 'Fern' }]);
    } finally {
      await service.close();
    }
  });
});
