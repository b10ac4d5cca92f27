import { expect } from 'chai';
import { eventBody } from '../../../src/domain/webhook.js';

describe('webhook events', () => {
  it('when an event body is built, then it is the NewPlant with the id exact', () => {
    expect(
      eventBody({ type: 'plant.created', plant: { id: 2n ** 63n - 1n, name: 'a\u0001"' } }),
    ).to.equal('{"id":9223372036854775807,"name":"a\\u0001\\""}');
    expect(eventBody({ type: 'plant.created', plant: { id: -5n, name: 'b', tag: '' } })).to.equal(
      '{"id":-5,"name":"b","tag":""}',
    );
  });
});
