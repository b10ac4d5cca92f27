import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';

const SRC = new URL('../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every module specifier of a file: static imports, re-exports and dynamic imports. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)import\s+'([^']+)'/g,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

const files = sourceFiles(SRC).map((file) => ({
  path: relative(SRC, file),
  specifiers: imports(file),
}));

describe('dependency rule (architecture.md)', () => {
  it('when the tree is read, then it finds the files it guards', () => {
    expect(files.map((f) => f.path)).to.include.members([
      'domain/plant.ts',
      'ports/plant-store.ts',
      'main.ts',
    ]);
    expect(files.find((f) => f.path === 'adapters/container.ts')?.specifiers).to.include(
      'inversify',
    );
  });

  for (const room of ['domain/', 'ports/']) {
    it(`when a file under src/${room} imports, then only src/domain or src/ports, never a package`, () => {
      const offenders = files
        .filter((f) => f.path.startsWith(room))
        .flatMap((f) =>
          f.specifiers
            .filter((s) => !/^\.\.?\/(?:\.\.\/)?(?:domain|ports)\/|^\.\/[^/]+$/.test(s))
            .map((s) => `${f.path}: ${s}`),
        );
      expect(offenders).to.deep.equal([]);
    });
  }

  it('when a file imports inversify, then it is the composition root', () => {
    const users = files.filter((f) => f.specifiers.includes('inversify')).map((f) => f.path);
    expect(users).to.deep.equal(['adapters/container.ts']);
  });

  it('when a file imports koa or @koa/router, then it lies under adapters/http', () => {
    const offenders = files.filter(
      (f) =>
        f.specifiers.some((s) => /^(?:koa|koa-.*|@koa\/.*)$/.test(s)) &&
        !f.path.startsWith('adapters/http/'),
    );
    expect(offenders.map((f) => f.path)).to.deep.equal([]);
  });

  it('when a file outside the composition root imports an adapter, then it is main, cli or index', () => {
    const offenders = files.filter(
      (f) =>
        !f.path.startsWith('adapters/') &&
        !['main.ts', 'cli.ts', 'index.ts'].includes(f.path) &&
        f.specifiers.some((s) => s.includes('adapters/')),
    );
    expect(offenders.map((f) => f.path)).to.deep.equal([]);
  });
});
