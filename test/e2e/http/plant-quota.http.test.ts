import { expect } from 'chai';
import { Api, expectError } from '../../support/http-harness.js';

describe('POST /plants at the tenant quota (memory, PLANT_STORE_MAX_PLANTS_PER_TENANT=2)', () => {
  let api: Api;
  before(async () => {
    api = await Api.start({ kind: 'memory', maxPlantsPerTenant: 2 });
  });
  after(() => api?.close());

  it('when the tenant holds its quota, then 403 40302 (in the OpenAPI document), and a delete makes room', async () => {
    expect((await api.create('1', 'a')).status).to.equal(200);
    expect((await api.create('2', 'b')).status).to.equal(200);

    const refused = expectError(await api.create('3', 'c'), 403, 40302);
    expect(refused.message).to.match(/quota of 2 plants/);
    expect((await api.create('3', 'c', undefined, 'other')).status).to.equal(200);
    expect(await api.names()).to.deep.equal(['a', 'b']);

    expect((await api.request('DELETE', '/plants/1')).status).to.equal(204);
    expect((await api.create('3', 'c')).status).to.equal(200);
  });
});
