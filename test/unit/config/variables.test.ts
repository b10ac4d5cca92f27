import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { loadConfig } from '../../../src/config/index.js';
import { VARIABLES } from '../../../src/config/variables.js';

const JWT = {
  PLANT_STORE_JWT_ISSUER: 'https://issuer.example/',
  PLANT_STORE_JWT_AUDIENCE: 'plant-store',
  PLANT_STORE_JWT_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
};
/** An environment under which a variable `with` a storage or JWTs is read. */
const BASES: Record<string, Record<string, string>> = {
  lmdb: {},
  memory: { PLANT_STORE_STORAGE: 'memory' },
  redis: { PLANT_STORE_STORAGE: 'redis' },
  mongodb: { PLANT_STORE_STORAGE: 'mongodb' },
  jwt: JWT,
};

/** The names loadConfig reads from `env`. */
function namesRead(env: Record<string, string>): string[] {
  const read = new Set<string>();
  const watched = new Proxy(env, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  loadConfig(watched);
  return [...read];
}

describe('the configuration variables (src/config/variables.ts)', () => {
  it('when loadConfig runs on every storage and with JWTs, then it reads exactly the listed variables', () => {
    const read = new Set(Object.values(BASES).flatMap(namesRead));
    expect([...read].sort()).to.deep.equal(VARIABLES.map(({ name }) => name).sort());
  });

  it('when a variable is set to its listed default, then loadConfig gives what it gives unset', () => {
    // Unset, these stay absent from the configuration (the store applies its default), or the
    // default depends on the machine (the open-file limit).
    const absentUnset = [
      'PLANT_STORE_DURABILITY',
      'PLANT_STORE_REDIS_PREFIX',
      'PLANT_STORE_MAX_PLANTS_PER_TENANT',
      'PLANT_STORE_MEMORY_HEAP_LIMIT_PERCENT',
      'PLANT_STORE_MAX_CONNECTIONS',
    ];
    for (const variable of VARIABLES) {
      if (variable.default === undefined || absentUnset.includes(variable.name)) continue;
      const base = BASES[variable.with ?? 'lmdb']!;
      expect(
        loadConfig({ ...base, [variable.name]: variable.default }),
        `${variable.name}=${variable.default}`,
      ).to.deep.equal(loadConfig(base));
    }
  });

  it('when docs/*.md are read, then every variable is documented, and the configuration table lists no other', async () => {
    const docs = await Promise.all(
      ['operations', 'webhooks', 'tokens', 'storage'].map((name) =>
        readFile(new URL(`../../../docs/${name}.md`, import.meta.url), 'utf8'),
      ),
    );
    // A table row or a sentence: `NAME` or `NAME=value`.
    const undocumented = VARIABLES.filter(
      ({ name }) => !docs.some((doc) => new RegExp(`\`${name}[\`=]`).test(doc)),
    ).map(({ name }) => name);
    expect(undocumented).to.deep.equal([]);

    const operations = docs[0]!;
    const table = operations.slice(
      operations.indexOf('## Configuration'),
      operations.indexOf('\n## ', operations.indexOf('## Configuration') + 1),
    );
    // The first cell of each row: the names it documents (`A`, `B`; `PLANT_STORE_JWT_*` rows point elsewhere).
    const named = table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) =>
        [...line.split('|')[1]!.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!),
      );
    const known = new Set(VARIABLES.map(({ name }) => name));
    expect(named.filter((name) => !known.has(name))).to.deep.equal([]);
  });
});
