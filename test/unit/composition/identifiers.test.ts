import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { TYPES } from '../../../src/composition/identifiers.js';

describe('TYPES', () => {
  it("when docs/embedding.md's table of identifiers is read, then it lists exactly the identifiers of TYPES", () => {
    const page = readFileSync(new URL('../../../docs/embedding.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('### What you can rebind')).split('\n\n')[2]!;
    const listed = [...table.matchAll(/^\| `(\w+)`/gm)].map(([, name]) => name);

    expect(listed.toSorted()).to.deep.equal(Object.keys(TYPES).toSorted());
  });
});
