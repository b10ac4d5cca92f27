import { expect } from 'chai';
import { send } from '../../support/http-client.js';
import { MAIN, runProgram, startService } from '../../support/service-process.js';

describe('main (the executable)', () => {
  it('when started with no tokens on memory, then it prints a working dev token and stops cleanly on SIGTERM', async () => {
    const service = await startService({});
    try {
      const [, token] = await service.waitFor(/export TOKEN=(\S+)/);
      const { port } = service;
      const auth: [string, string][] = [['Authorization', `Bearer ${token}`]];

      const created = await send(port, 'POST', '/plants', {
        headers: [...auth, ['Content-Type', 'application/json']],
        body: '{"id":1,"name":"Started"}',
      });
      const listed = await send(port, 'GET', '/plants', { headers: auth });
      expect([created.status, listed.text]).to.deep.equal([200, '[{"name":"Started"}]']);

      const huge = await send(port, 'GET', '/plants', {
        headers: [['X-Big', 'x'.repeat(20000)]],
      });
      expect([huge.status, JSON.parse(huge.text)]).to.deep.equal([
        431,
        { error: 43101, message: 'request headers are too large' },
      ]);

      expect(await service.stop()).to.equal(0);
    } finally {
      await service.stop();
    }
  });

  it('when the configuration is bad, then it exits 1 with one line naming the variable', async () => {
    const { code, stdout, stderr } = await runProgram(MAIN, { PLANT_STORE_STORAGE: 'floppy' });

    expect(code).to.equal(1);
    expect([stdout, stderr]).to.deep.equal([
      '',
      'plant-store: PLANT_STORE_STORAGE must be memory, redis, mongodb or lmdb (got "floppy")\n',
    ]);
  });

  it('when HOST cannot be listened on, then it exits 1 with one line naming HOST and PORT', async () => {
    const { code, stderr } = await runProgram(MAIN, { HOST: '999.1.1.1' });

    expect(code).to.equal(1);
    expect(stderr).to.match(
      /^plant-store: .*cannot listen on HOST 999\.1\.1\.1, PORT 0 \(ENOTFOUND\)$/m,
    );
  });

  it('when tokens are configured, then no dev token is generated or printed', async () => {
    const tokens = JSON.stringify([
      { token: 'configured-token-0123456789', tenant: 't', scopes: ['plants:read'] },
    ]);
    const service = await startService({ PLANT_STORE_TOKENS: tokens });
    try {
      expect(service.output()).to.not.include('TOKEN=').and.not.include('configured-token');
    } finally {
      await service.stop();
    }
  });
});
