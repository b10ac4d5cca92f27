import { expect } from 'chai';
import { expectError, type Api } from '../../../support/http-harness.js';

export function describeGet(api: () => Api): void {
  describe('GET /plants/{id}', () => {
    it('when the plant exists, then 200 with its name and tag (no id); HEAD the same without a body', async () => {
      await api().create('9007199254740993', 'Monstera', 'aroid');
      await api().create('9007199254740992', 'Fern');

      const response = await api().request('GET', '/plants/9007199254740993', { as: 'read' });
      expect(response.status).to.equal(200);
      expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(response.text).to.equal('{"name":"Monstera","tag":"aroid"}');
      expect((await api().request('GET', '/plants/9007199254740992')).text).to.equal(
        '{"name":"Fern"}',
      );
      const head = await api().request('HEAD', '/plants/9007199254740993');
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      expect(head.headers['content-length']).to.equal(String(response.text.length));
    });

    it('when the id is an int64 extreme, then that plant exactly', async () => {
      await api().create('-9223372036854775808', 'min');
      await api().create('9223372036854775807', 'max');

      const min = await api().request('GET', '/plants/-9223372036854775808');
      expect(min.text).to.equal('{"name":"min"}');
      expect((await api().request('GET', '/plants/9223372036854775807')).text).to.equal(
        '{"name":"max"}',
      );
    });

    it('when there is no such plant, or it belongs to the other tenant, or it was deleted, then 404 40401', async () => {
      await api().create('8', 'mine');

      expectError(await api().request('GET', '/plants/9'), 404, 40401);
      expectError(await api().request('GET', '/plants/8', { as: 'other' }), 404, 40401);
      expect((await api().request('DELETE', '/plants/8')).status).to.equal(204);
      expectError(await api().request('GET', '/plants/8'), 404, 40401);
      const head = await api().request('HEAD', '/plants/8');
      expect([head.status, head.text]).to.deep.equal([404, '']);
    });

    for (const id of [
      'abc',
      '01',
      '-0',
      '1e2',
      '+1',
      '9223372036854775808',
      '-9223372036854775809',
    ]) {
      it(`when the path id is ${id}, then 400 40004`, async () => {
        expectError(await api().request('GET', `/plants/${id}`), 400, 40004);
      });
    }

    it('when the token has plants:write only, then 403 40301; without a token 401', async () => {
      await api().create('1', 'x');

      expectError(await api().request('GET', '/plants/1', { as: 'write' }), 403, 40301);
      expectError(await api().request('GET', '/plants/1', { as: null }), 401, 40101);
    });

    it('when another method is sent to /plants/{id}, then 405 lists GET, HEAD and DELETE', async () => {
      const response = await api().request('PUT', '/plants/1', { json: {} });

      expectError(response, 405, 40501);
      expect(String(response.headers.allow).split(/, */).sort()).to.deep.equal([
        'DELETE',
        'GET',
        'HEAD',
      ]);
    });
  });
}
