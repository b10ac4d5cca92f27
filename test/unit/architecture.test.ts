// What dependency-cruiser (.dependency-cruiser.mjs, run by `npm run lint`) cannot say: which
// packages a module loads as it is imported (dynamic imports aside), where Node's internals are
// touched, and that unit tests mirror src/.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src/');
const UNIT = join(ROOT, 'test/unit/');
const KOA = /^(?:koa|koa-.*|@koa\/.*)$/;

const sourceFiles = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) =>
  name.endsWith('.ts'),
);

/** Packages a file loads as it is imported: its static imports and theirs, never an import(). */
function loadedPackages(path: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(path)) return packages;
  seen.add(path);
  const text = readFileSync(join(SRC, path), 'utf8');
  const statics = text.matchAll(
    /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^;]*?from\s+'([^']+)'|(?:^|\n)import\s+'([^']+)'/g,
  );
  for (const [, from, bare] of statics) {
    const specifier = (from ?? bare)!;
    if (!specifier.startsWith('.')) packages.add(specifier);
    else {
      const target = relative(SRC, join(SRC, dirname(path), specifier)).replace(/\.js$/, '.ts');
      for (const found of loadedPackages(target, seen)) packages.add(found);
    }
  }
  return packages;
}

describe('architecture (beside .dependency-cruiser.mjs)', () => {
  it('when the executable is loaded, then Koa and inversify are (the check sees what it guards)', () => {
    expect([...loadedPackages('main.ts')]).to.include.members(['koa', 'inversify']);
  });

  it('when the plant-store command is loaded, then neither Koa nor inversify is (its commands load them on demand)', () => {
    const loaded = [...loadedPackages('cli.ts')];
    expect(loaded.filter((p) => KOA.test(p) || p === 'inversify')).to.deep.equal([]);
  });

  it('when the administration commands compose their container, then Koa is not loaded', () => {
    const loaded = [...loadedPackages('composition/open-administration.ts')];
    expect(loaded).to.include('inversify');
    expect(loaded.filter((p) => KOA.test(p))).to.deep.equal([]);
  });

  it('when a file touches an undocumented Node internal, then it is adapters/http/server/node-internals.ts', () => {
    const internal =
      /_httpMessage|destroySoon|closeIdleConnections\s*=|shouldKeepAlive|\.server\b\s*[?)]|stackTraceLimit|removeAllListeners\(\s*'data'|_matchedRoute/;
    const offenders = sourceFiles.filter((path) =>
      internal.test(readFileSync(join(SRC, path), 'utf8')),
    );
    expect(offenders).to.deep.equal(['adapters/http/server/node-internals.ts']);
  });

  it('when a unit test exists, then it is named after a source file (test/unit mirrors src/) or checks the whole project', () => {
    const wholeProject = [
      'architecture.test.ts',
      'dependencies.test.ts',
      'docs.test.ts',
      'docs-references.test.ts',
    ];
    const tests = readdirSync(UNIT, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.test.ts'),
    );
    const strays = tests.filter(
      (test) =>
        !wholeProject.includes(test) && !existsSync(join(SRC, test.replace(/\.test\.ts$/, '.ts'))),
    );
    expect(tests).to.include('architecture.test.ts');
    expect(strays).to.deep.equal([]);
  });
});
