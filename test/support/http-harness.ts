import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Container } from 'inversify';
import { StaticTokenVerifier } from '../../src/adapters/auth/static-token-verifier.js';
import {
  createHttpServer,
  listenHttpServer,
  type HttpServer,
} from '../../src/adapters/http/server/http-server.js';
import { trustedPeer } from '../../src/adapters/http/trusted-proxy.js';
import {
  defaultWebhookConfig,
  type WebhookConfig,
} from '../../src/adapters/webhooks/webhook-config.js';
import {
  loadConfig,
  type Config,
  type StaticToken,
  type StorageOptions,
} from '../../src/config/index.js';
import { TYPES } from '../../src/composition/identifiers.js';
import { OWN_PARTS } from '../../src/composition/modules.js';
import { buildContainer, resolveService, type Service } from '../../src/composition/container.js';
import type { Scope } from '../../src/domain/caller.js';
import type { PlantStore } from '../../src/ports/plant-store.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.js';
import type { WebhookSubscriptions } from '../../src/ports/webhook-subscriptions.js';
import { send, type HttpResponse, type RequestOptions } from './http-client.js';
import { OpenApiValidator } from './openapi-validator.js';

export type Role = 'both' | 'read' | 'write' | 'other';

const ROLE_SCOPES: Record<Role, Scope[]> = {
  both: ['plants:read', 'plants:write'],
  read: ['plants:read'],
  write: ['plants:write'],
  other: ['plants:read', 'plants:write'],
};

/**
 * The role tokens every harness serves (each service knows only its own, so they need not differ
 * between services); raw-socket tests write them into request text.
 */
export const ROLE_TOKENS: Readonly<Record<Role, string>> = {
  both: 'test_both_0123456789abcdefghijkl',
  read: 'test_read_0123456789abcdefghijkl',
  write: 'test_write_0123456789abcdefghijkl',
  other: 'test_other_0123456789abcdefghijkl',
};

/** Delays of milliseconds instead of hours, so that retries happen within a test. */
export const FAST_WEBHOOKS: Partial<WebhookConfig> = {
  schedule: { delaysMs: [50, 100, 200], jitter: 0.2, disableAfterMs: 60_000 },
  timeoutMs: 500,
  allowPrivate: true,
  pollMs: 50,
  leaseMs: 2_000,
  cacheMs: 50,
};

/** How the harness builds its service beyond the configuration. */
export interface HarnessOptions {
  /**
   * Serve the role tokens (`tokens`, moved to fresh tenants by `newTenants`) through a static
   * verifier rebound in the container; false keeps the configured verifier chain (static tokens
   * of `config.staticTokens`, managed tokens, JWT). True unless given.
   */
  roles?: boolean;
  /** Rebinds ports after the harness's own bindings, before the service is resolved. */
  configure?: (container: Container) => void;
  /** Delivers webhooks (FAST_WEBHOOKS over these fields). */
  webhooks?: Partial<WebhookConfig>;
}

/**
 * The service in this process, as `serve` runs it: the real container, the real node:http server
 * and its socket policies (`config.http`, `config.trustProxy`) on loopback, with the sockets it
 * accepted in view. Answers are checked against the served OpenAPI document. Four role tokens act
 * in one tenant per test (`newTenants`).
 */
export class Api {
  /** `both`, `read` and `write` act in `tenant`; `other` in a second tenant. */
  readonly tokens: Record<Role, string>;
  tenant = '';
  otherTenant = '';
  /** Every connection the server accepted, in order. */
  readonly sockets: Socket[] = [];
  /** The storage's webhook subscriptions and outbox, when webhooks are delivered. */
  subscriptions: WebhookSubscriptions | undefined;
  outbox: WebhookOutbox | undefined;
  private validator: OpenApiValidator | undefined;
  private served!: Service;

  private constructor(
    readonly server: HttpServer,
    private readonly files: string,
    private readonly options: HarnessOptions,
    private readonly tokenTable: StaticToken[],
    private readonly reloadTokens: () => void,
  ) {
    this.tokens = Object.fromEntries(
      (Object.keys(ROLE_SCOPES) as Role[]).map((role, i) => [role, tokenTable[i]!.token]),
    ) as Record<Role, string>;
    server.on('connection', (socket: Socket) => this.sockets.push(socket));
  }

  static async start(
    storage: StorageOptions = { kind: 'memory' },
    extra: Partial<Config> = {},
    options: HarnessOptions = {},
  ): Promise<Api> {
    const tokens = (Object.keys(ROLE_SCOPES) as Role[]).map((role) => ({
      token: ROLE_TOKENS[role],
      tenant: 'pending',
      scopes: ROLE_SCOPES[role],
    }));
    const files = mkdtempSync(join(tmpdir(), 'plant-store-harness-'));
    const config: Config = {
      ...loadConfig({ LOG_LEVEL: 'silent' }),
      logLevel: (process.env.TEST_LOG_LEVEL ?? 'silent') as Config['logLevel'],
      storage,
      staticTokens: tokens,
      // The contract suites send many refused tokens from one address on purpose.
      authFailureLimit: 0,
      ...(options.webhooks && {
        webhooks: defaultWebhookConfig({
          ...FAST_WEBHOOKS,
          ...options.webhooks,
        }),
      }),
      ...extra,
    };
    // The real StaticTokenVerifier, rebuilt whenever the tests move tokens to fresh tenants.
    let verifier = new StaticTokenVerifier(tokens);
    let handle = (_request: IncomingMessage, _response: ServerResponse): void => {};
    const server = createHttpServer((request, response) => handle(request, response), config.http, {
      trustedProxy: trustedPeer(config.trustProxy),
    });
    const api = new Api(server, files, options, tokens, () => {
      verifier = new StaticTokenVerifier(tokens);
    });
    api.newTenants();
    const rolesVerifier = { verify: (token: string) => verifier.verify(token) };
    await api.build(config, rolesVerifier, (service) => (handle = service.app.callback()));
    await listenHttpServer(server, 0, '127.0.0.1');
    // On a connection of its own that closes: the tests count and watch connections from here.
    const openapi = await send(api.port, 'GET', '/openapi.json', {
      headers: [['Connection', 'close']],
    });
    api.validator = new OpenApiValidator(JSON.parse(openapi.text));
    while ((await api.open()) > 0) await new Promise((resolve) => setImmediate(resolve));
    api.sockets.splice(0);
    return api;
  }

  /** Builds and resolves a service on `config`, and serves it from now on. */
  private async build(
    config: Config,
    rolesVerifier: { verify(token: string): ReturnType<StaticTokenVerifier['verify']> },
    serve: (service: Service) => void,
  ): Promise<void> {
    const container = buildContainer(config);
    if (this.options.roles !== false) {
      container.rebind(TYPES.TokenVerifier).toConstantValue(rolesVerifier);
    }
    this.options.configure?.(container);
    const service = await resolveService(container);
    await service.opened;
    if (config.webhooks !== undefined && this.options.webhooks !== undefined) {
      const opened = await container.get(OWN_PARTS).storage.opened;
      await service.startDelivery();
      this.subscriptions = opened.webhooks;
      this.outbox = opened.outbox;
    }
    this.served = service;
    this.restartWith = async (changes) => {
      const previous = this.served;
      await this.build({ ...config, ...changes }, rolesVerifier, serve);
      await previous.close();
    };
    serve(service);
  }

  /**
   * Builds the service anew with these configuration changes (as a restart with a new
   * environment would) and serves it from now on; the stores stay only where a `configure`
   * rebinds them to the same instances.
   */
  restartWith: (changes: Partial<Config>) => Promise<void> = async () => {};

  /** The service served now. */
  get service(): Service {
    return this.served;
  }

  get store(): PlantStore {
    return this.served.plantStore;
  }

  /** Moves every token to fresh tenants, so each test starts from empty stores. */
  newTenants(): void {
    this.tenant = `tenant-${randomUUID()}`;
    this.otherTenant = `other-${randomUUID()}`;
    for (const entry of this.tokenTable)
      entry.tenant = entry.token.startsWith('test_other_') ? this.otherTenant : this.tenant;
    this.reloadTokens();
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

  /** Sends a request (with the token of `as`, unless null) and checks the answer against the OpenAPI document. */
  async request(
    method: string,
    path: string,
    options: RequestOptions & { as?: Role | null; json?: unknown } = {},
  ): Promise<HttpResponse> {
    const headers: [string, string][] = [];
    const role = options.as === undefined ? 'both' : options.as;
    if (role !== null) headers.push(['Authorization', `Bearer ${this.tokens[role]}`]);
    let body = options.body;
    if (options.json !== undefined) {
      headers.push(['Content-Type', 'application/json']);
      body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
    }
    headers.push(...(options.headers ?? []));
    const response = await send(this.port, method, path, {
      headers,
      ...(body !== undefined && { body }),
    });
    this.validator!.check(method, path, response);
    return response;
  }

  /** Creates a plant through HTTP; `id` is raw JSON text, so it is sent exactly. */
  async create(
    id: string | bigint,
    name: string,
    tag?: string,
    as: Role = 'both',
  ): Promise<HttpResponse> {
    const tagJson = tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`;
    return this.request('POST', '/plants', {
      as,
      json: `{"id":${id},"name":${JSON.stringify(name)}${tagJson}}`,
    });
  }

  /** Names of the listed plants, after asserting a 200. */
  async names(query = '', as: Role = 'both'): Promise<string[]> {
    const response = await this.request('GET', `/plants${query}`, { as });
    expect(response.status, response.text).to.equal(200);
    return (JSON.parse(response.text) as { name: string }[]).map((p) => p.name);
  }

  /** Stops serving and closes the service; closing again only waits for the first. */
  close(): Promise<void> {
    return (this.closing ??= this.closeOnce());
  }

  private closing: Promise<void> | undefined;

  private async closeOnce(): Promise<void> {
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
    await this.served.close();
    rmSync(this.files, { recursive: true, force: true });
  }
}

/** Asserts the contract's Error answer: status, code, JSON type, exactly the two keys. */
export function expectError(
  response: HttpResponse,
  status: number,
  code: number,
): { error: number; message: string } {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
  const body = JSON.parse(response.text) as { error: number; message: string };
  expect(body).to.have.all.keys('error', 'message');
  expect(body.error).to.equal(code);
  expect(body.message).to.be.a('string').and.not.equal('');
  return body;
}
