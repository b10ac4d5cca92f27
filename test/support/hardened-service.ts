import type { Socket } from 'node:net';
import { StaticTokenVerifier } from '../../src/adapters/auth/static-token-verifier.js';
import { createHttpApp, type HttpAppOptions } from '../../src/adapters/http/app.js';
import {
  createHttpServer,
  listenHttpServer,
  type HttpLimits,
  type HttpServer,
} from '../../src/adapters/http/server/http-server.js';
import { trustedPeer } from '../../src/adapters/http/trusted-proxy.js';
import { MemoryPlantStore } from '../../src/adapters/storage/memory/memory-plant-store.js';
import { PlantService } from '../../src/application/plant-service.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The real application on the memory store behind createHttpServer, with the server's sockets in view. */
export class HardenedService {
  /** Tokens of one tenant: both scopes, and read only. */
  static readonly TOKEN = 'hardening-token-0123456789';
  static readonly READ_TOKEN = 'hardening-read-token-0123456789';
  /** Every connection the server accepted, in order. */
  readonly sockets: Socket[] = [];

  private constructor(
    readonly server: HttpServer,
    readonly store: MemoryPlantStore,
  ) {
    server.on('connection', (socket: Socket) => this.sockets.push(socket));
  }

  static async start(
    limits: Partial<HttpLimits> = {},
    app: Partial<
      Pick<HttpAppOptions, 'rateLimit' | 'authFailureLimit' | 'tokenVerifier' | 'trustProxy'>
    > = {},
  ): Promise<HardenedService> {
    const store = new MemoryPlantStore();
    const tokens = new StaticTokenVerifier([
      { token: HardenedService.TOKEN, tenant: 't', scopes: ['plants:read', 'plants:write'] },
      { token: HardenedService.READ_TOKEN, tenant: 't', scopes: ['plants:read'] },
    ]);
    const koa = createHttpApp({
      plants: new PlantService(store),
      tokenVerifier: tokens,
      readiness: [{ name: 'plants', ping: () => store.ping() }],
      logger: silent,
      ...app,
    });
    const server = createHttpServer(koa.callback(), limits, {
      trustedProxy: trustedPeer(app.trustProxy),
    });
    const service = new HardenedService(server, store);
    await listenHttpServer(service.server, 0, '127.0.0.1');
    return service;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Connections the server holds open now. */
  open(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
