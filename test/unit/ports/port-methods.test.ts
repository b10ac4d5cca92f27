import { expect } from 'chai';
import { portMethods } from '../../../src/ports/port-methods.js';
import { PLANT_STORE_METHODS, type PlantStore } from '../../../src/ports/plant-store.js';
import { TOKEN_STORE_METHODS, type TokenStore } from '../../../src/ports/token-store.js';
import {
  WEBHOOK_SUBSCRIPTIONS_METHODS,
  type WebhookSubscriptions,
} from '../../../src/ports/webhook-subscriptions.js';

interface TwoMethods {
  read(): Promise<string>;
  write(value: string): Promise<void>;
}

/** The port's members at run time cannot be read from an interface: each list is checked by tsc. */
const distinct = (methods: readonly string[]) => new Set(methods).size === methods.length;

describe('portMethods (a port method list checked when it compiles)', () => {
  it('when every method is listed, then the list is returned as given', () => {
    const methods = portMethods<TwoMethods>()(['read', 'write']);
    expect(methods).to.deep.equal(['read', 'write']);
  });

  it('when a method is missing from the list, then it does not compile', () => {
    // @ts-expect-error: 'write' is left out, so the list is refused by the type checker.
    const methods = portMethods<TwoMethods>()(['read']);
    expect(methods).to.deep.equal(['read']);
  });

  it('when the ports list their methods, then each list names each method once', () => {
    const lists: readonly (readonly string[])[] = [
      PLANT_STORE_METHODS satisfies readonly (keyof PlantStore)[],
      TOKEN_STORE_METHODS satisfies readonly (keyof TokenStore)[],
      WEBHOOK_SUBSCRIPTIONS_METHODS satisfies readonly (keyof WebhookSubscriptions)[],
    ];
    for (const methods of lists) {
      expect(methods).to.have.length.above(0);
      expect(distinct(methods), methods.join(', ')).to.equal(true);
    }
  });
});
