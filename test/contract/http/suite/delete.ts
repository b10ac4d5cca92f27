import { expect } from 'chai';
import { expectError, type Api } from '../../../support/http-harness.js';

export function describeDelete(api: () => Api): void {
  describe('DELETE /plants/{id}', () => {
    it('when the plant exists, then 204 with no body; then 404 40401', async () => {
      await api().create('3', 'x');

      const response = await api().request('DELETE', '/plants/3');

      expect(response.status).to.equal(204);
      expect(response.text).to.equal('');
      expect(response.headers['content-type']).to.equal(undefined);
      expectError(await api().request('DELETE', '/plants/3'), 404, 40401);
    });

    it('when the id is an int64 extreme, then it is deleted exactly', async () => {
      await api().create('-9223372036854775808', 'min');
      await api().create('9223372036854775807', 'max');

      expect((await api().request('DELETE', '/plants/-9223372036854775808')).status).to.equal(204);
      expect(await api().names()).to.deep.equal(['max']);
    });

    for (const id of [
      'abc',
      '01',
      '-0',
      '1.0',
      '1e2',
      '+1',
      '%201',
      '9223372036854775808',
      '-9223372036854775809',
      '0x10',
    ]) {
      it(`when the path id is ${id}, then 400 40004`, async () => {
        expectError(await api().request('DELETE', `/plants/${id}`), 400, 40004);
      });
    }

    it('when the plant belongs to the other tenant, then 404 40401 and it survives', async () => {
      await api().create('8', 'mine');

      expectError(await api().request('DELETE', '/plants/8', { as: 'other' }), 404, 40401);
      expect(await api().names()).to.deep.equal(['mine']);
    });
  });
}
