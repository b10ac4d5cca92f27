import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../src/adapters/auth/static-token-verifier.js';
import {
  loadConfig,
  type Config,
  type StaticToken,
  type StorageOptions,
} from '../../src/config/index.js';
import { TYPES } from '../../src/composition/identifiers.js';
import { buildService, type Service } from '../../src/composition/container.js';
import type { Scope } from '../../src/domain/caller.js';
import type { PlantStore } from '../../src/ports/plant-store.js';
import { send, type HttpResponse, type RequestOptions } from './http-client.js';
import { OpenApiValidator } from './openapi-validator.js';

export type Role = 'both' | 'read' | 'write' | 'other';

const ROLE_SCOPES: Record<Role, Scope[]> = {
  both: ['plants:read', 'plants:write'],
  read: ['plants:read'],
  write: ['plants:write'],
  other: ['plants:read', 'plants:write'],
};

/** A running service (real composition, real server on loopback) with one tenant per test. */
export class Api {
  /** `both`, `read` and `write` act in `tenant`; `other` in a second tenant. */
  readonly tokens: Record<Role, string>;
  tenant = '';
  otherTenant = '';

  private constructor(
    private readonly server: Server,
    private readonly service: Service,
    private readonly validator: OpenApiValidator,
    readonly store: PlantStore,
    private readonly tokenTable: StaticToken[],
    private readonly reloadTokens: () => void,
  ) {
    this.tokens = Object.fromEntries(
      (Object.keys(ROLE_SCOPES) as Role[]).map((role, i) => [role, tokenTable[i]!.token]),
    ) as Record<Role, string>;
  }

  static async start(storage: StorageOptions, extra: Partial<Config> = {}): Promise<Api> {
    const tokens = (Object.keys(ROLE_SCOPES) as Role[]).map((role) => ({
      token: `test_${role}_${randomBytes(18).toString('base64url')}`,
      tenant: 'pending',
      scopes: ROLE_SCOPES[role],
    }));
    const config: Config = {
      ...loadConfig({ LOG_LEVEL: 'silent' }),
      storage,
      staticTokens: tokens,
      // The contract suites send many refused tokens from one address on purpose.
      authFailureLimit: 0,
      ...extra,
    };
    // The real StaticTokenVerifier, rebuilt whenever the tests move tokens to fresh tenants.
    let verifier = new StaticTokenVerifier(tokens);
    const service = await buildService(config, (container) => {
      container
        .rebind(TYPES.TokenVerifier)
        .toConstantValue({ verify: (token: string) => verifier.verify(token) });
    });
    const server = createServer(service.app.callback());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const document = JSON.parse((await send(port, 'GET', '/openapi.json')).text);
    const api = new Api(
      server,
      service,
      new OpenApiValidator(document),
      service.plantStore,
      tokens,
      () => {
        verifier = new StaticTokenVerifier(tokens);
      },
    );
    api.newTenants();
    return api;
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
    this.validator.check(method, path, response);
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

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await this.service.close();
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
