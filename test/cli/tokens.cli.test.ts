import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { TOKEN_CACHE_TTL_MS } from '../../src/adapters/auth/managed-token-verifier.js';
import { send, type HttpResponse } from '../support/http-client.js';
import { expectError } from '../support/http-harness.js';
import { plantStore, startServer } from './run-program.js';

const TOKEN_SHAPE = /^pst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;

describe('plant-store tokens (the real program, memory storage)', function () {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
  const env = { PLANT_STORE_TOKEN_FILE: join(directory, 'tokens.json') };
  let server: { child: ChildProcess; port: number };

  before(async () => {
    server = await startServer(env);
  });
  after(() => {
    server?.child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });

  const call = (
    method: string,
    path: string,
    token: string,
    body?: string,
  ): Promise<HttpResponse> =>
    send(server.port, method, path, {
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
    expect(entry).to.include({ id: token.slice(4, 20), name: 'ci job', tenant, status: 'active' });
    expect(entry).to.not.have.property('digest');
    expect(entry!.lastUsedAt).to.be.a('string');
    const table = await plantStore(['tokens', 'list'], env);
    expect(table.stdout).to.match(
      /^ID\s+NAME\s+TENANT\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED\s+STATUS\n/,
    );
    expect(table.stdout).to.include(token.slice(4, 20)).and.not.include(token.slice(21));

    const revoked = await plantStore(['tokens', 'revoke', token.slice(4, 20)], env);
    const revokedAt = Date.now();
    expect(revoked.code, revoked.stderr).to.equal(0);
    let response = await call('GET', '/plants', token);
    while (response.status === 200 && Date.now() - revokedAt < TOKEN_CACHE_TTL_MS + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      response = await call('GET', '/plants', token);
    }
    expect(Date.now() - revokedAt).to.be.at.most(TOKEN_CACHE_TTL_MS + 500);
    expectError(response, 401, 40102);
    const after = await plantStore(['tokens', 'list', '--tenant', tenant, '--json'], env);
    expect(JSON.parse(after.stdout)[0]).to.include({ status: 'revoked' });
  });

  it('when a token expires, then it answers 401 40102 and is listed as expired', async () => {
    const tenant = `cli-expiry-${Date.now()}`;
    const token = await create('--tenant', tenant, '--scope', 'plants:read', '--expires-in', '2s');
    const fresh = await call('GET', '/plants', token);

    await new Promise((resolve) => setTimeout(resolve, 2100));
    const stale = await call('GET', '/plants', token);

    expect(fresh.status).to.equal(200);
    expectError(stale, 401, 40102);
    const list = await plantStore(['tokens', 'list', '--tenant', tenant, '--json'], env);
    expect(JSON.parse(list.stdout)[0]).to.include({ status: 'expired' });
  });

  it('when the token has only plants:read, then writing answers 403 40301', async () => {
    const token = await create('--tenant', `cli-scope-${Date.now()}`, '--scope', 'plants:read');

    expectError(await call('POST', '/plants', token, '{"id":1,"name":"x"}'), 403, 40301);
  });

  it('when --json is asked of create, then the token and its record are printed, without the digest', async () => {
    const { code, stdout } = await plantStore(
      [
        'tokens',
        'create',
        '--tenant',
        'json',
        '--scope',
        'plants:read',
        '--expires-in',
        'never',
        '--json',
      ],
      env,
    );

    const printed = JSON.parse(stdout) as Record<string, unknown>;
    expect(code).to.equal(0);
    expect(printed.token).to.match(TOKEN_SHAPE);
    expect(printed).to.include({ tenant: 'json', name: '' });
    expect(printed).to.not.have.any.keys('digest', 'expiresAt');
  });

  it('when the program is refused, then the process exits with the documented code (2 usage, 3 not found, 1 failure)', async () => {
    const [usage, notFound, failure] = await Promise.all([
      plantStore(['tokens', 'create', '--tenant', 't', '--scope', 'plants:admin'], env),
      plantStore(['tokens', 'revoke', 'ffffffffffffffff'], env),
      plantStore(['tokens', 'list'], { PLANT_STORE_STORAGE: 'floppy' }),
    ]);

    expect([usage.code, notFound.code, failure.code]).to.deep.equal([2, 3, 1]);
    expect(usage.stderr).to.match(/^plant-store: unknown scope "plants:admin"/);
    expect(notFound.stderr).to.equal('plant-store: no token with id ffffffffffffffff\n');
    expect(failure.stderr).to.equal(
      'plant-store: PLANT_STORE_STORAGE must be memory, redis or mongodb (got "floppy")\n',
    );
  });

  it('when --help is given, then the program prints usage and exits 0', async () => {
    const { code, stdout } = await plantStore(['tokens', 'create', '--help'], env);

    expect([code, stdout.split('\n')[0]]).to.deep.equal([
      0,
      'Usage: plant-store tokens create --tenant T --scope S [--scope S] [options]',
    ]);
  });
});
