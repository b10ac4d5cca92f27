import { expect } from 'chai';
import fc from 'fast-check';
import { ERROR_ROWS } from '../../../src/adapters/http/error-catalogue.js';
import { send } from '../../support/http-client.js';
import { Api } from '../../support/http-harness.js';
import { OpenApiValidator } from '../../support/openapi-validator.js';
import { rawExchange } from '../../support/raw-exchange.js';
import { RawClient } from '../../support/raw-client.js';
import { fuzzRequests, type FuzzRequest } from './fuzz-requests.js';

/** `npm test` runs a short pass; `npm run fuzz` sets FUZZ_RUNS (and FUZZ_SEED to replay one). */
const RUNS = Number(process.env.FUZZ_RUNS || 120);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const CODES = new Set(ERROR_ROWS.map((row) => row.code));
const TOKENS_BY_ROLE = {
  both: 'fuzz-both-token-0123456789abcdef',
  read: 'fuzz-read-token-0123456789abcdef',
};

/** The path part of a request target as the server sees it (no dot-segment removal). */
const pathOf = (target: string): string => target.replace(/^http:\/\/[^/]*/, '').split('?', 1)[0]!;

describe('HTTP fuzz (fast-check, raw requests against the real app on memory)', function () {
  this.timeout(Math.max(60_000, RUNS * 200));
  let service: Api;
  let validator: OpenApiValidator;
  let port: number;

  before(async () => {
    service = await Api.start(
      undefined,
      {
        staticTokens: [
          { token: TOKENS_BY_ROLE.both, tenant: 'fuzz', scopes: ['plants:read', 'plants:write'] },
          { token: TOKENS_BY_ROLE.read, tenant: 'fuzz', scopes: ['plants:read'] },
        ],
        // Short timeouts, so that a request the generator left incomplete ends in 408 quickly.
        http: { headersTimeoutMs: 1000, requestTimeoutMs: 1000, lingerMs: 200 },
      },
      { roles: false },
    );
    port = service.port;
    validator = new OpenApiValidator(JSON.parse((await send(port, 'GET', '/openapi.json')).text));
  });
  after(() => service.close());

  async function check(request: FuzzRequest): Promise<void> {
    const response = await rawExchange(port, request.bytes, 5000);
    const what = `${request.bytes.toString('latin1').slice(0, 400)}\n->`;
    expect(response, `${what} no answer`).to.not.equal(undefined);
    expect(response!.status, `${what} ${response!.text}`).to.be.below(500);
    if (request.refusedWith !== undefined) {
      expect(response!.status, `${what} ${response!.text}`).to.be.oneOf(request.refusedWith);
    }
    validator.check(request.method.toUpperCase(), pathOf(request.target), response!);
    if (response!.status >= 400 && request.method !== 'HEAD') {
      const body = JSON.parse(response!.text) as { error: number };
      expect(CODES.has(body.error), `${what} code ${body.error} is not in the catalogue`).to.equal(
        true,
      );
      expect(String(body.error).slice(0, 3)).to.equal(String(response!.status));
    }
  }

  it('when generated requests are sent, then none gets a 5xx, each answer fits the OpenAPI document, and every error code is in the catalogue', async () => {
    await fc.assert(fc.asyncProperty(fuzzRequests(TOKENS_BY_ROLE), check), {
      numRuns: RUNS,
      ...(SEED !== undefined && { seed: SEED }),
    });
  });

  // Pipelined bursts: the server answers a connection's requests one at a time, up to 32 waiting
  // (server/connections.ts), and closes a connection that pipelines further.
  const pipelined = fc.oneof(
    fc.integer({ min: 0, max: 2000 }).map((limit) => ['GET', `/plants?limit=${limit}`, '']),
    fc
      .tuple(fc.integer({ min: -5, max: 40 }), fc.string({ unit: 'binary', maxLength: 40 }))
      .map(([id, name]) => ['POST', '/plants', JSON.stringify({ id, name })]),
    fc.integer({ min: -5, max: 40 }).map((id) => ['DELETE', `/plants/${id}`, '']),
    fc.constantFrom(['GET', '/healthz', ''], ['GET', '/openapi.json', ''], ['GET', '/nowhere', '']),
  );
  const asBytes = ([method, target, body]: readonly string[]) =>
    `${method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS_BY_ROLE.both}\r\n` +
    (body === ''
      ? ''
      : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body!)}\r\n`) +
    `\r\n${body}`;

  it('when bursts of pipelined requests arrive in one write, then none gets a 5xx, all are answered when 33 or fewer, and the server keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pipelined, { minLength: 1, maxLength: 60 }), async (requests) => {
        const client = await RawClient.open(port);
        try {
          client.send(
            requests.map(asBytes).join('') +
              'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
          );
          await Promise.race([client.ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
          const statuses = [...client.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) =>
            Number(m[1]),
          );
          expect(
            statuses.every((status) => status < 500),
            client.text.slice(0, 400),
          ).to.equal(true);
          if (requests.length + 1 <= 33) expect(statuses).to.have.length(requests.length + 1);
          else expect(statuses.length).to.be.at.most(requests.length + 1);
        } finally {
          client.destroy();
        }
        expect((await send(port, 'GET', '/healthz')).status).to.equal(200);
      }),
      { numRuns: Math.max(20, Math.floor(RUNS / 20)), ...(SEED !== undefined && { seed: SEED }) },
    );
  });

  // Refusals by the request's head alone (no Host, an unknown Expect) reach every path, the open
  // ones included; a generated run finds them there only now and then.
  it('when the open endpoints get a request refused by its head, then the answer fits the OpenAPI document', async () => {
    for (const method of ['GET', 'HEAD']) {
      for (const target of ['/healthz', '/readyz', 'http://evil.example/healthz?']) {
        for (const head of [
          '',
          'Host: 127.0.0.1\r\nExpect: foo\r\n',
          'Host: 127.0.0.1\r\nExpect: 100-continue, foo\r\n',
          'Host: 127.0.0.1\r\nHost: evil.example\r\n',
        ]) {
          const bytes = Buffer.from(
            `${method} ${target} HTTP/1.1\r\n${head}Connection: close\r\n\r\n`,
            'latin1',
          );
          await check({ method, target, bytes });
        }
      }
    }
  });
});
