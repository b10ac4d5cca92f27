import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { BENCH_TOKEN, benchTokens, plantBody } from '../../bench/common.js';
import { PEER_SERVERS } from '../../bench/peers.js';
import { startServer, stopServer, type Running } from '../../bench/proc.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** What the comparison looks at: status, media type, and the JSON body (absent when empty). */
interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
  requestId: string | null;
}

async function ask(url: string, method: string, path: string, init: RequestInit = {}) {
  const response = await fetch(url + path, { method, ...init });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
    requestId: response.headers.get('x-request-id'),
  } satisfies Answer;
}

const auth = (token = BENCH_TOKEN) => ({ authorization: `Bearer ${token}` });
const json = { ...auth(), 'content-type': 'application/json' };

/** The requests the bench drives, and the refusals it must tell apart, in order, on a fresh server. */
async function script(url: string): Promise<Record<string, Answer>> {
  return {
    create: await ask(url, 'POST', '/plants', { headers: json, body: plantBody(7) }),
    'create another': await ask(url, 'POST', '/plants', { headers: json, body: plantBody(3) }),
    page: await ask(url, 'GET', '/plants?limit=20', { headers: auth() }),
    'duplicate (409)': await ask(url, 'POST', '/plants', { headers: json, body: plantBody(7) }),
    delete: await ask(url, 'DELETE', '/plants/7', { headers: auth() }),
    'page after the delete': await ask(url, 'GET', '/plants?limit=20', { headers: auth() }),
    'no token (401)': await ask(url, 'GET', '/plants?limit=20'),
    'unknown token (401)': await ask(url, 'GET', '/plants?limit=20', { headers: auth('nope') }),
  };
}

// The peers of `npm run bench` must do what the service does for the requests the bench drives,
// or the comparison measures different work. Part of `npm run bench:quick`.
describe('bench peers', function () {
  this.timeout(180_000);
  const answers = new Map<string, Record<string, Answer>>();

  before(async () => {
    for (const project of ['tsconfig.build.json', 'bench/servers/nest']) {
      const build = spawnSync(
        process.execPath,
        ['node_modules/typescript/bin/tsc', '-p', project],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      expect(build.status, build.stdout + build.stderr).to.equal(0);
    }
    const servers = [
      {
        label: 'service',
        nodeArgs: ['dist/cli.js', 'serve'],
        env: { PLANT_STORE_STORAGE: 'memory' },
      },
      ...PEER_SERVERS.map(({ label, nodeArgs }) => ({ label, nodeArgs, env: {} })),
    ];
    for (const { label, nodeArgs, env } of servers) {
      const running: Running = await startServer(nodeArgs, {
        PLANT_STORE_TOKENS: benchTokens('peers'),
        ...env,
      });
      try {
        answers.set(label, await script(running.url));
      } finally {
        await stopServer(running);
      }
    }
  });

  it('when the service is asked, then it answers the contract (the reference for the peers)', () => {
    const service = answers.get('service')!;
    expect(service.create).to.deep.include({
      status: 200,
      body: { name: 'plant-000007', tag: 'tag-0007' },
    });
    expect(service['duplicate (409)']!.body).to.deep.equal({
      error: 40901,
      message: 'a plant with id 7 already exists',
    });
    expect(service.delete).to.deep.include({ status: 204, contentType: null, body: undefined });
    expect(service['no token (401)']!.status).to.equal(401);
    expect(service['unknown token (401)']!.status).to.equal(401);
  });

  for (const { label } of PEER_SERVERS) {
    it(`when ${label} is asked the same, then it answers as the service: status, media type, body`, () => {
      const service = answers.get('service')!;
      const peer = answers.get(label)!;
      for (const [request, expected] of Object.entries(service)) {
        const got = peer[request]!;
        expect(
          {
            status: got.status,
            contentType: got.contentType?.toLowerCase() ?? null,
            body: got.body,
          },
          `${label}: ${request}`,
        ).to.deep.equal({
          status: expected.status,
          contentType: expected.contentType?.toLowerCase() ?? null,
          body: expected.body,
        });
      }
    });

    it(`when ${label} answers, then every answer carries an X-Request-Id`, () => {
      for (const [request, answer] of Object.entries(answers.get(label)!)) {
        expect(answer.requestId, `${label}: ${request}`).to.be.a('string').and.not.equal('');
      }
    });
  }
});
