import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { send } from './support/http-client.js';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;

/** Starts src/main.ts as `npm start` would (through tsx, so no build is needed), on a free port. */
function start(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  return { child, output: () => text };
}

async function waitFor(output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let i = 0; i < 150; i++) {
    const match = pattern.exec(output());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return expect.fail(`no ${pattern} in: ${output()}`);
}

describe('main (the executable)', () => {
  it('when started with no tokens on memory, then it prints a working dev token and stops cleanly on SIGTERM', async () => {
    const { child, output } = start({});
    try {
      const [, token] = await waitFor(output, /export TOKEN=(\S+)/);
      const [, port] = await waitFor(output, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
      const auth: [string, string][] = [['Authorization', `Bearer ${token}`]];

      const created = await send(Number(port), 'POST', '/plants', {
        headers: [...auth, ['Content-Type', 'application/json']],
        body: '{"id":1,"name":"Started"}',
      });
      const listed = await send(Number(port), 'GET', '/plants', { headers: auth });
      expect([created.status, listed.text]).to.deep.equal([200, '[{"name":"Started"}]']);

      const huge = await send(Number(port), 'GET', '/plants', {
        headers: [['X-Big', 'x'.repeat(20000)]],
      });
      expect([huge.status, JSON.parse(huge.text)]).to.deep.equal([
        431,
        { error: 43101, message: 'request headers are too large' },
      ]);

      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).to.equal(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('when the configuration is bad, then it exits 1 with one line naming the variable', async () => {
    const { child, output } = start({ PLANT_STORE_STORAGE: 'floppy' });

    const [code] = await once(child, 'exit');

    expect(code).to.equal(1);
    expect(output().trim()).to.equal(
      'plant-store: PLANT_STORE_STORAGE must be memory, redis or mongodb (got "floppy")',
    );
  });

  it('when HOST cannot be listened on, then it exits 1 with one line naming HOST and PORT', async () => {
    const { child, output } = start({ HOST: '999.1.1.1' });

    const [code] = await once(child, 'exit');

    expect(code).to.equal(1);
    expect(output()).to.match(
      /^plant-store: .*cannot listen on HOST 999\.1\.1\.1, PORT 0 \(ENOTFOUND\)$/m,
    );
  });

  it('when tokens are configured, then no dev token is generated or printed', async () => {
    const tokens = JSON.stringify([
      { token: 'configured-token-0123456789', tenant: 't', scopes: ['plants:read'] },
    ]);
    const { child, output } = start({ PLANT_STORE_TOKENS: tokens });
    try {
      await waitFor(output, /listening on/);
      expect(output()).to.not.include('TOKEN=').and.not.include('configured-token');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
