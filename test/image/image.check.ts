// Run by scripts/test-image.sh (npm run test:image) once it has built the image and exported its
// filesystem to IMAGE_ROOT: the image as a container runtime would run it, under chroot as the
// image's user, with its environment, entrypoint and command (podman itself cannot run it here).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort } from '../support/free-port.js';

const run = promisify(execFile);
const ROOT = process.env.IMAGE_ROOT ?? '';
const INSPECT = process.env.IMAGE_INSPECT ?? '';

interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  Volumes: Record<string, object>;
}

describe('the container image, run from its exported filesystem', function () {
  this.timeout(120_000);
  let config: ImageConfig;
  let healthcheck: string[];
  let user: { uid: number; gid: number };
  let port: number;
  const mounts: string[] = [];

  before(async function () {
    if (ROOT === '' || INSPECT === '') expect.fail('run by scripts/test-image.sh (IMAGE_ROOT)');
    const [inspected] = JSON.parse(readFileSync(INSPECT, 'utf8')) as [
      { Config: ImageConfig; Healthcheck?: { Test: string[] } },
    ];
    config = inspected.Config;
    healthcheck = inspected.Healthcheck?.Test ?? [];
    const entry = readFileSync(join(ROOT, 'etc', 'passwd'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith(`${config.User}:`));
    expect(entry, `user ${config.User} in the image's /etc/passwd`).to.not.equal(undefined);
    const [, , uid, gid] = entry!.split(':');
    user = { uid: Number(uid), gid: Number(gid) };
    port = await freePort();
    // What a container runtime provides: /proc and /dev.
    for (const [what, args] of [
      ['proc', ['-t', 'proc', 'proc']],
      ['dev', ['--bind', '/dev']],
    ] as const) {
      mkdirSync(join(ROOT, what), { recursive: true });
      await run('mount', [...args, join(ROOT, what)]);
      mounts.push(join(ROOT, what));
    }
  });
  after(async () => {
    for (const mount of mounts.reverse()) await run('umount', [mount]);
  });

  /** `command` inside the image's root, as its user, with its environment (PORT: ours). */
  const inImage = (command: string[]): string[] => [
    `--userspec=${user.uid}:${user.gid}`,
    '--groups=',
    ROOT,
    '/usr/bin/env',
    '-i',
    '-C',
    config.WorkingDir,
    // A runtime's default PATH when the image sets none.
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    // tini is not PID 1 under chroot: as a subreaper it still reaps, as it would as PID 1.
    'TINI_SUBREAPER=1',
    ...config.Env.filter((pair) => !pair.startsWith('PORT=')),
    `PORT=${port}`,
    ...command,
  ];

  /** The image's entrypoint and command; resolves once it logs that it listens. */
  async function start(): Promise<{ child: ChildProcess; output: () => string }> {
    const child = spawn('chroot', inImage([...config.Entrypoint, ...config.Cmd]), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk));
    child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (text.includes('"msg":"listening"')) resolve();
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) =>
        reject(new Error(`the image's process exited (${code}):\n${text}`)),
      );
    });
    return { child, output: () => text };
  }

  /** SIGTERM to the entrypoint (tini, as a runtime sends it); resolves the exit code. */
  const stop = (child: ChildProcess): Promise<number | null> =>
    new Promise((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });

  const healthy = () =>
    run('chroot', inImage(healthcheck.slice(1))).then(
      () => true,
      () => false,
    );

  it('when the image is inspected, then it runs `serve` under tini as a non-root user, with the data directory a volume and a health check', () => {
    expect(user.uid).to.be.above(0);
    expect(config.Entrypoint[0]).to.equal('tini');
    expect(config.Cmd).to.deep.equal(['serve']);
    const dataDir = config.Env.find((pair) => pair.startsWith('PLANT_STORE_DATA_DIR='))!.split(
      '=',
    )[1]!;
    expect(Object.keys(config.Volumes)).to.deep.equal([dataDir]);
    expect(healthcheck[0]).to.equal('CMD');
  });

  it('when it serves on its volume, then a plant created survives a SIGTERM and a start, and the health check answers only while it serves', async () => {
    const first = await start();
    const token = /export TOKEN=(\S+)/.exec(first.output())?.[1];
    expect(token, first.output()).to.be.a('string');
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`http://127.0.0.1:${port}/plants`, {
      method: 'POST',
      headers,
      body: '{"id":7,"name":"Monstera"}',
    });
    expect(created.status).to.equal(200);
    expect(await healthy()).to.equal(true);
    // The fixed addon reached the runtime: no warning of the stock one.
    expect(first.output()).to.not.match(/"level":(?:40|50)/);
    expect(await stop(first.child)).to.equal(0);
    expect(first.output()).to.include('"msg":"shutting down"');
    expect(await healthy()).to.equal(false);

    const second = await start();
    try {
      const listed = await fetch(`http://127.0.0.1:${port}/plants`, { headers });
      expect(await listed.json()).to.deep.equal([{ name: 'Monstera' }]);
    } finally {
      expect(await stop(second.child)).to.equal(0);
    }
  });
});
