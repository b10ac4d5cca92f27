import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { runProgram } from '../support/service-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;

// The benchmark's --quick mode, checked so that it cannot rot: every server must start, answer
// under load and stop, and the output must keep its shape. Speed is never asserted here (the
// machine may be busy); only structure. It takes about half a minute, so `npm test` leaves it to
// `npm run bench:quick`, a step of its own in .ci/run.
describe('bench --quick', function () {
  // Ten servers (two more on Redis when installed) on a shared machine, then seven at a fixed rate.
  this.timeout(300_000);
  let code: number;
  let stdout = '';
  let stderr = '';

  before(async () => {
    const build = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(build.status, build.stdout + build.stderr).to.equal(0);
    const peers = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'bench/servers/nest'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(peers.status, peers.stdout + peers.stderr).to.equal(0);
    ({ code, stdout, stderr } = await runProgram(
      ['bench/run.ts', '--quick', '--spin', '1'],
      {},
      280_000,
    ));
  });

  it('when run, then it exits 0 and says whether it pinned the processes', () => {
    expect(code, stdout + stderr).to.equal(0);
    expect(stdout).to.match(/^pinned: (yes|no)/m);
  });

  it('when run, then every server has a GET and a POST row with figures', () => {
    for (const server of [
      'service',
      'bare Koa',
      'bare Koa \\+ 1 µs spin',
      'node:http',
      'Fastify',
      'NestJS \\(Express\\)',
      'NestJS \\(Fastify\\)',
      'Fastify \\+ features',
    ]) {
      for (const workload of ['GET', 'POST']) {
        const row = new RegExp(`^${server} +${workload} +(\\d+) +[\\d.]+ +[\\d.]+ +(\\d+|-) `, 'm');
        const match = row.exec(stdout);
        expect(match, `${server} ${workload} in:\n${stdout}`).to.not.equal(null);
        expect(Number(match![1])).to.be.greaterThan(0);
      }
    }
  });

  it('when run, then it prints the ratios against each reference and the scaling table', () => {
    for (const workload of ['GET', 'POST']) {
      for (const reference of [
        'bare Koa',
        'node:http',
        'Fastify',
        'NestJS \\(Express\\)',
        'NestJS \\(Fastify\\)',
        'Fastify \\+ features',
      ]) {
        expect(stdout).to.match(
          new RegExp(
            `^  ${workload} +service/${reference} +[\\d.]+ / [\\d.]+ / [\\d.]+ +per CPU-s [\\d.-]+ / [\\d.-]+ / [\\d.-]+$`,
            'm',
          ),
        );
      }
    }
    expect(stdout).to.match(/^memory +1000 +\d+ /m);
  });

  it('when run, then it prints the tags scenario on memory, and on LMDB when it measured LMDB, with its targets and lines', () => {
    const stores = /^store: lmdb /m.test(stdout) ? ['memory', 'lmdb'] : ['memory'];
    for (const store of stores) {
      for (const [request, plants] of [
        ['GET /plants\\?limit=20', 1000],
        ['GET /plants\\?limit=20&tags=aroid', 10_000],
        ['GET /plants/\\{id\\}', 1000],
        ['GET /plants/\\{id\\}', 10_000],
      ] as const) {
        expect(stdout).to.match(
          new RegExp(`^${store} +${request} +${plants} +\\d+ +[\\d.]+ +[\\d.]+ +[\\d.]+$`, 'm'),
          `${store} ${request} ${plants}`,
        );
      }
      expect(stdout).to.match(
        new RegExp(
          `^  ${store} tags p99 at 10k <= 1\\.2x page at 1k +[\\d.]+x  (met|MISSED by \\d+%)$`,
          'm',
        ),
      );
      expect(stdout).to.match(
        new RegExp(
          `^  ${store} GET by id >= list per CPU-s \\(1k\\) +[\\d.]+x  (met|MISSED by \\d+%)$`,
          'm',
        ),
      );
    }
    const ratios = (store: string) =>
      `${store} p50 \\d+\\.\\d\\d p99 \\d+\\.\\d\\d per CPU-s \\d+\\.\\d\\d`;
    expect(stdout).to.match(
      new RegExp(
        `^bench-tags: ${stores.map(ratios).join(', ')} \\(GET /plants\\?limit=20&tags=aroid at 10k plants, 1% tagged/GET /plants\\?limit=20 at 1k\\)$`,
        'm',
      ),
    );
    const get = (store: string) => `${store} \\d+\\.\\d\\d \\(10k \\d+\\.\\d\\d\\)`;
    expect(stdout).to.match(
      new RegExp(
        `^bench-get: ${stores.map(get).join(', ')} \\(GET /plants/\\{id\\}/GET /plants\\?limit=20 per CPU-s, at 1k plants; at 10k against the list at 1k\\)$`,
        'm',
      ),
    );
  });

  it('when run, then it prints the peer table per CPU-second and the latency table at a fixed rate', () => {
    const ratio = '[\\d.-]+ / [\\d.-]+ / [\\d.-]+';
    for (const peer of ['NestJS \\(Express\\)', 'NestJS \\(Fastify\\)', 'Fastify \\+ features']) {
      expect(stdout).to.match(
        new RegExp(`^${peer} +[\\d.]+ +[\\d.]+ +${ratio} +${ratio}$`, 'm'),
        `peer table row of ${peer}`,
      );
      for (const workload of ['GET', 'POST']) {
        expect(stdout).to.match(
          new RegExp(`^${peer} +${workload} +\\d+ +[\\d.]+ +[\\d.]+$`, 'm'),
          `latency row of ${peer} ${workload}`,
        );
      }
    }
    expect(stdout).to.match(/^peers: the service against each, per CPU-second/m);
    expect(stdout).to.match(
      /^ {2}Koa's own cost: bare Koa\/bare Fastify per CPU-s GET [\d.]+ POST [\d.]+/m,
    );
    expect(stdout).to.match(/^latency at a fixed rate: GET \d+ req\/s, POST \d+ req\/s offered/m);
  });

  it('when run, then the peers and latency lines come before the last, with no problem to report', () => {
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-3)).to.match(
      /^bench-peers: GET \d+\.\d\d POST \d+\.\d\d \(service\/best NestJS peer per CPU-s, median of 1 rounds\)$/,
    );
    expect(lines.at(-2)).to.match(
      /^bench-latency: GET p99 \d+\.\d\d \/ \d+\.\d\d POST p99 \d+\.\d\d \/ \d+\.\d\d \(ms, service \/ best NestJS peer, at \d+ \/ \d+ req\/s\)$/,
    );
    expect(stdout).to.not.match(/^PROBLEMS/m);
  });

  it('when run, then the floor and overhead lines come before the last, with the overhead target, and the Redis lines when it measured Redis', () => {
    const lines = stdout.trimEnd().split('\n');
    const floor =
      /^bench-floor: GET \d+\.\d\d POST \d+\.\d\d \(service\/node:http per CPU-s, median of 1 rounds\)$/;
    expect(
      lines.some((line) => floor.test(line)),
      stdout,
    ).to.equal(true);
    const redis = /^store: redis /m.test(stdout);
    const redisLine =
      /^bench-redis: GET \d+\.\d\d POST \d+\.\d\d \(service on Redis\/service on memory, median of 1 rounds\)$/m;
    expect(redisLine.test(stdout), stdout).to.equal(redis);
    const workers =
      /^bench-workers: GET \d+\.\d\d POST \d+\.\d\d \(2 workers\/1 process on one Redis, req\/s, median of 1 rounds\)$/m;
    expect(workers.test(stdout), stdout).to.equal(redis && availableParallelism() > 1);
    const overhead =
      /^bench-overhead: GET (-?\d+\.\d\d|inf) POST (-?\d+\.\d\d|inf) \(\(Fastify \+ features - Fastify\)\/\(service - bare Koa\), CPU µs per request GET -?\d+\.\d\/-?\d+\.\d POST -?\d+\.\d\/-?\d+\.\d, median of 1 rounds\)$/m;
    expect(stdout).to.match(overhead);
    for (const workload of ['GET', 'POST']) {
      expect(stdout).to.match(
        new RegExp(
          `^  ${workload} overhead >= 1\\.0x \\(features on Fastify\\) +(-?[\\d.]+|inf)x  (met|MISSED by -?\\d+%)$`,
          'm',
        ),
      );
    }
    expect(stdout).to.match(
      /^bench-spin: 1 µs of work a request add GET \+-?\d+\.\d POST \+-?\d+\.\d µs\/req to bare Koa \(CPU of the server, median of 1 rounds\)$/m,
    );
  });

  it('when run, then the last line is the one scripts read', () => {
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).to.match(
      /^bench: GET \d+\.\d\d POST \d+\.\d\d \(service\/bare Koa, median of 1 rounds\)$/,
    );
  });
});
