import { expect } from 'chai';
import { expectError, type Api } from '../../../support/http-harness.js';

const REALM = 'Bearer realm="plant-store"';

export function describeAccess(api: () => Api): void {
  describe('authentication, scopes and precedence', () => {
    const operations = [
      ['GET', '/plants'],
      ['POST', '/plants'],
      ['DELETE', '/plants/1'],
    ] as const;

    for (const [method, path] of operations) {
      it(`when ${method} ${path} has no Authorization, then 401 40101 with a Bearer challenge`, async () => {
        const response = await api().request(method, path, {
          as: null,
          json: '{"id":1,"name":"x"}',
        });

        expectError(response, 401, 40101);
        expect(response.headers['www-authenticate']).to.equal(REALM);
      });
    }

    for (const header of ['Basic dXNlcjpwYXNz', 'Token abcdefghijklmnop', 'Bearerabc']) {
      it(`when the scheme is not Bearer (${header}), then 401 40101`, async () => {
        const response = await api().request('GET', '/plants', {
          as: null,
          headers: [['Authorization', header]],
        });

        expectError(response, 401, 40101);
        expect(response.headers['www-authenticate']).to.equal(REALM);
      });
    }

    it('when the scheme is written bEaReR, then it is accepted', async () => {
      const response = await api().request('GET', '/plants', {
        as: null,
        headers: [['Authorization', `bEaReR ${api().tokens.both}`]],
      });
      expect(response.status).to.equal(200);
    });

    for (const header of [
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Bearer tok;en',
      'Bearer =abc',
      'Bearer a,b',
    ]) {
      it(`when the credentials are malformed (${JSON.stringify(header)}), then 400 40005`, async () => {
        const response = await api().request('GET', '/plants', {
          as: null,
          headers: [['Authorization', header]],
        });

        expectError(response, 400, 40005);
        expect(response.headers['www-authenticate']).to.equal(`${REALM}, error="invalid_request"`);
      });
    }

    it('when two Authorization headers are sent, then 400 40005', async () => {
      const response = await api().request('GET', '/plants', {
        headers: [['Authorization', `Bearer ${api().tokens.both}`]],
      });

      expectError(response, 400, 40005);
    });

    it('when the token is unknown, then 401 40102 with invalid_token', async () => {
      const response = await api().request('GET', '/plants', {
        as: null,
        headers: [['Authorization', 'Bearer unknown-token-0123456789']],
      });

      expectError(response, 401, 40102);
      expect(response.headers['www-authenticate']).to.equal(`${REALM}, error="invalid_token"`);
    });

    const scopeCases = [
      ['read', 'POST', '/plants', 'plants:write'],
      ['read', 'DELETE', '/plants/1', 'plants:write'],
      ['write', 'GET', '/plants', 'plants:read'],
    ] as const;
    for (const [role, method, path, scope] of scopeCases) {
      it(`when a ${role}-only token calls ${method} ${path}, then 403 40301 naming ${scope}`, async () => {
        const response = await api().request(method, path, {
          as: role,
          json: '{"id":1,"name":"x"}',
        });

        expectError(response, 403, 40301);
        expect(response.headers['www-authenticate']).to.equal(
          `${REALM}, error="insufficient_scope", scope="${scope}"`,
        );
      });
    }

    it('when the scopes suffice, then read and write tokens each do their part', async () => {
      expect((await api().create('1', 'x', undefined, 'write')).status).to.equal(200);
      expect(await api().names('', 'read')).to.deep.equal(['x']);
      expect((await api().request('DELETE', '/plants/1', { as: 'write' })).status).to.equal(204);
    });

    it('when a read-only token deletes an existing plant, then 403 and the plant stays', async () => {
      await api().create('4', 'x');

      expectError(await api().request('DELETE', '/plants/4', { as: 'read' }), 403, 40301);
      expect(await api().names()).to.deep.equal(['x']);
    });

    describe('precedence (first failing check wins)', () => {
      it('when the route is unknown, then 404 40402 even without credentials', async () => {
        expectError(await api().request('GET', '/plant', { as: null }), 404, 40402);
        expectError(await api().request('GET', '/plants/1/leaves', { as: null }), 404, 40402);
      });

      it('when the method is not allowed, then 405 40501 with Allow, even without credentials', async () => {
        const onList = await api().request('PUT', '/plants', { as: null });
        const onOne = await api().request('POST', '/plants/1', { as: null });

        expectError(onList, 405, 40501);
        expect(onList.headers.allow?.split(', ').sort()).to.deep.equal(['GET', 'HEAD', 'POST']);
        expectError(onOne, 405, 40501);
        expect(onOne.headers.allow?.split(', ').sort()).to.deep.equal(['DELETE', 'GET', 'HEAD']);
      });

      it('when credentials are missing, then 401 wins over a bad media type and body', async () => {
        const response = await api().request('POST', '/plants', {
          as: null,
          headers: [['Content-Type', 'text/plain']],
          body: 'x'.repeat(70000),
        });
        expectError(response, 401, 40101);
      });

      it('when the scope is missing, then 403 wins over the media type', async () => {
        const response = await api().request('POST', '/plants', {
          as: 'read',
          headers: [['Content-Type', 'text/plain']],
          body: 'nope',
        });
        expectError(response, 403, 40301);
      });

      it('when the media type is wrong, then 415 wins over the size', async () => {
        const response = await api().request('POST', '/plants', {
          headers: [['Content-Type', 'text/plain']],
          body: 'x'.repeat(70000),
        });
        expectError(response, 415, 41501);
      });

      it('when the body is too large, then 413 wins over its syntax', async () => {
        expectError(
          await api().request('POST', '/plants', { json: '{'.repeat(70000) }),
          413,
          41301,
        );
      });

      it('when the body is not JSON, then 40001 wins over the fields', async () => {
        expectError(await api().request('POST', '/plants', { json: '{"id":"x",' }), 400, 40001);
      });

      it('when a field is invalid, then 40002 wins over a duplicate id', async () => {
        await api().create('1', 'x');
        expectError(
          await api().request('POST', '/plants', { json: '{"id":1,"name":""}' }),
          400,
          40002,
        );
      });

      it('when a read-only token deletes an invalid path id, then 403 wins over 40004', async () => {
        expectError(await api().request('DELETE', '/plants/abc', { as: 'read' }), 403, 40301);
      });

      it('when a write-only token lists with a bad limit, then 403 wins over 40003', async () => {
        expectError(await api().request('GET', '/plants?limit=-1', { as: 'write' }), 403, 40301);
      });
    });
  });
}
