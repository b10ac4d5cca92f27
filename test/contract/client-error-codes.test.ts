import { expect } from 'chai';
import { ERROR_ROWS, type ErrorName } from '../../src/adapters/http/error-catalogue.js';
import { ERROR_CODES } from '../../packages/client/src/index.js';

/**
 * Names the client published before its list followed the catalogue; callers use them, so they
 * stay. Every other name is the catalogue's row name in capitals ('plant-quota-reached' ->
 * PLANT_QUOTA_REACHED).
 */
const KEPT_NAMES: Partial<Record<ErrorName, string>> = {
  'invalid-body': 'MALFORMED_JSON',
  'invalid-id': 'INVALID_PATH_ID',
  'unexpected-failure': 'UNEXPECTED',
};

const clientName = (name: ErrorName): string =>
  KEPT_NAMES[name] ?? name.toUpperCase().replaceAll('-', '_');

describe('plant-store/client ERROR_CODES', () => {
  it("when compared with the service's error catalogue, then it holds exactly its codes, each under the row's name", () => {
    const expected = ERROR_ROWS.map((row) => `${clientName(row.name)}: ${row.code}`);
    const actual = Object.entries(ERROR_CODES)
      .sort(([, a], [, b]) => a - b)
      .map(([name, code]) => `${name}: ${code}`);

    // One line a code, so that a missing or wrong one shows as a line diff.
    expect(actual.join('\n')).to.equal(expected.join('\n'));
  });

  it('when a kept name is read, then it differs from the derived one (else the mapping is stale)', () => {
    for (const [name, kept] of Object.entries(KEPT_NAMES)) {
      expect(kept, name).to.not.equal(name.toUpperCase().replaceAll('-', '_'));
    }
  });
});
