import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ERROR_CODES } from '../../packages/client/src/index.js';

describe('docs/client.md', () => {
  it('when it lists the names of ERROR_CODES, then each name has its code and none is missing', () => {
    const text = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
    const listed: Record<string, number> = {};
    for (const [, names = '', codes = ''] of text.matchAll(
      /^\| (`[A-Z_]+`.*?) +\| ([0-9, ]+?) +\|$/gm,
    )) {
      const codeList = codes.split(', ').map(Number);
      names
        .split(', ')
        .forEach((name, index) => (listed[name.replaceAll('`', '')] = codeList[index]!));
    }
    expect(listed).to.deep.equal({ ...ERROR_CODES });
  });
});
