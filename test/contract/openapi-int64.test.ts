import { expect } from 'chai';
import { PlantStoreClient } from '../../packages/client/src/index.js';
import { Api } from '../support/http-harness.js';
import { send } from '../support/http-client.js';

// Generators (openapi-typescript, openapi-fetch) read `format: int64` and still type the id as a
// JS number; docs/client.md says why, and why the bundled client is the exact way through.
describe('int64 in the served OpenAPI document, and the bundled client', () => {
  let api: Api;
  before(async () => {
    api = await Api.start({ kind: 'memory' });
  });
  after(async () => api?.close());

  it('when /openapi.json is read, then NewPlant.id is an integer of format int64 with exact bounds', async () => {
    const { text } = await send(api.port, 'GET', '/openapi.json');

    // The bounds are checked as text: JSON.parse would round them to doubles.
    expect(text).to.include('"minimum":-9223372036854775808,"maximum":9223372036854775807');
    const id = JSON.parse(text).components.schemas.NewPlant.properties.id;
    expect([id.type, id.format]).to.deep.equal(['integer', 'int64']);
  });

  it('when the client creates 9007199254740993, then that exact id exists and 9007199254740992 does not', async () => {
    const client = new PlantStoreClient({
      baseUrl: `http://127.0.0.1:${api.port}`,
      token: api.tokens.both,
    });

    await client.createPlant({ id: 9007199254740993n, name: 'Monstera' });

    const missing = await api.request('DELETE', '/plants/9007199254740992');
    expect(missing.status).to.equal(404);
    await client.deletePlant(9007199254740993n);
    expect(await client.listPlants()).to.deep.equal({ plants: [] });
  });
});
