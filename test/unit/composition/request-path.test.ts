import { expect } from 'chai';
import {
  inOrder,
  MIDDLEWARE,
  REQUEST_POLICIES,
  ROUTE_GUARDS,
} from '../../../src/composition/request-path.js';

describe('request path', () => {
  it('when steps are given by name, then inOrder returns them in the order of the list, whatever the order they were given in', () => {
    const steps = inOrder(MIDDLEWARE, {
      'no-route': 5,
      routes: 4,
      'error-handler': 3,
      'request-observer': 2,
      'trust-proxy': 1,
    });

    expect(steps).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('when a request is traced through the lists, then pipelining comes before the Host check, the observer before the error handler and authorization before the body', () => {
    expect(REQUEST_POLICIES.indexOf('pipelined-answers')).to.be.below(
      REQUEST_POLICIES.indexOf('host-check'),
    );
    expect(MIDDLEWARE.indexOf('request-observer')).to.be.below(MIDDLEWARE.indexOf('error-handler'));
    expect(ROUTE_GUARDS.createPlant).to.deep.equal(['authorize', 'require-json', 'read-body']);
  });
});
