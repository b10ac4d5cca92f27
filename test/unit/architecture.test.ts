import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { COVERED_ELSEWHERE } from '../support/covered-elsewhere.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src/');
const UNIT = join(ROOT, 'test/unit/');

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

/** Packages a file loads as it is imported: its static imports and theirs, never a dynamic import(). */
function loadedPackages(path: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(path)) return packages;
  seen.add(path);
  const text = readFileSync(join(SRC, path), 'utf8');
  const statics = [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^;]*?from\s+'([^']+)'|(?:^|\n)import\s+'([^']+)'/g,
    ),
  ].map((m) => (m[1] ?? m[2])!);
  for (const specifier of statics) {
    if (!specifier.startsWith('.')) packages.add(specifier);
    else {
      const target = relative(SRC, join(SRC, dirname(path), specifier)).replace(/\.js$/, '.ts');
      for (const found of loadedPackages(target, seen)) packages.add(found);
    }
  }
  return packages;
}

/** The file a relative specifier of `from` names, as a path under src/. */
function resolve(from: string, specifier: string): string {
  return relative(SRC, join(SRC, dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** Every import cycle of the graph, each once, as `a -> b -> a` (Tarjan's strongly connected components). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
      found.push(component.sort().join(' <-> '));
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('dependency rule (docs/architecture.md)', () => {
  it('when the tree is read, then it finds the files it guards', () => {
    expect(files.map((f) => f.path)).to.include.members([
      'domain/plant.ts',
      'ports/plant-store.ts',
      'main.ts',
      'cli.ts',
    ]);
    expect(files.find((f) => f.path === 'composition/container.ts')?.specifiers).to.include(
      'inversify',
    );
    expect(loadedPackages('main.ts')).to.include.members(['koa', 'inversify']);
  });

  it('when a file under src/application imports, then only src/domain, src/ports, its own room or node: built-ins', () => {
    const offenders = files
      .filter((f) => f.path.startsWith('application/'))
      .flatMap((f) =>
        f.specifiers
          .filter((s) => !/^\.\.\/(?:domain|ports)\/|^\.\/[^/]+$|^node:/.test(s))
          .map((s) => `${f.path}: ${s}`),
      );
    expect(offenders).to.deep.equal([]);
  });

  it('when an adapter imports, then never the configuration (src/config): adapters own their options', () => {
    const offenders = files
      .filter((f) => f.path.startsWith('adapters/'))
      .flatMap((f) =>
        f.specifiers
          .filter((s) => s.startsWith('.') && resolve(f.path, s).startsWith('config/'))
          .map((s) => `${f.path}: ${s}`),
      );
    expect(offenders).to.deep.equal([]);
  });

  it('when the imports of src/ are followed, then no file reaches itself again (no import cycle)', () => {
    const graph = new Map(
      files.map((f) => [
        f.path,
        f.specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(f.path, s)),
      ]),
    );
    expect(cycles(graph)).to.deep.equal([]);
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

  it('when a file imports inversify, then it lies in the composition root (src/composition)', () => {
    const users = files.filter((f) => f.specifiers.includes('inversify')).map((f) => f.path);
    expect(users).to.include('composition/container.ts');
    expect(users.filter((path) => !path.startsWith('composition/'))).to.deep.equal([]);
  });

  it('when a file imports koa or @koa/router, then it lies under adapters/http', () => {
    const offenders = files.filter(
      (f) =>
        f.specifiers.some((s) => /^(?:koa|koa-.*|@koa\/.*)$/.test(s)) &&
        !f.path.startsWith('adapters/http/'),
    );
    expect(offenders.map((f) => f.path)).to.deep.equal([]);
  });

  it('when a file touches an undocumented Node internal, then it is adapters/http/server/node-internals.ts', () => {
    const internal =
      /_httpMessage|destroySoon|closeIdleConnections\s*=|shouldKeepAlive|\.server\b\s*[?)]|stackTraceLimit|removeAllListeners\(\s*'data'|_matchedRoute/;
    const offenders = files
      .filter((f) => internal.test(readFileSync(join(SRC, f.path), 'utf8')))
      .map((f) => f.path);
    expect(offenders).to.deep.equal(['adapters/http/server/node-internals.ts']);
  });

  it('when a file outside the adapters imports an adapter, then it is the composition, the configuration, the CLI, main, index or core', () => {
    const offenders = files.filter(
      (f) =>
        !/^(?:adapters|composition|config|cli)\//.test(f.path) &&
        !['main.ts', 'cli.ts', 'index.ts', 'core.ts'].includes(f.path) &&
        f.specifiers.some((s) => s.includes('adapters/')),
    );
    expect(offenders.map((f) => f.path)).to.deep.equal([]);
  });

  it('when an adapter imports, then never the composition, main or cli (they are built on adapters)', () => {
    const offenders = files
      .filter((f) => f.path.startsWith('adapters/'))
      .flatMap((f) =>
        f.specifiers
          .filter((s) => /(?:^|\/)(?:composition\/|cli\/|main\.js$|cli\.js$)/.test(s))
          .map((s) => `${f.path}: ${s}`),
      );
    expect(offenders).to.deep.equal([]);
  });

  it('when the plant-store command is loaded, then neither Koa nor inversify is (its commands load them on demand)', () => {
    const loaded = [...loadedPackages('cli.ts')];
    expect(loaded.filter((p) => /^(?:koa|koa-.*|@koa\/.*|inversify)$/.test(p))).to.deep.equal([]);
  });

  it('when the administration commands compose their container, then Koa is not loaded', () => {
    const loaded = [...loadedPackages('composition/open-administration.ts')];
    expect(loaded).to.include('inversify');
    expect(loaded.filter((p) => /^(?:koa|koa-.*|@koa\/.*)$/.test(p))).to.deep.equal([]);
  });

  it('when a file other than the CLI and the executables imports, then never src/cli (the command line is built on the rest)', () => {
    const offenders = files
      .filter((f) => !f.path.startsWith('cli/') && !['cli.ts', 'main.ts'].includes(f.path))
      .flatMap((f) =>
        f.specifiers
          .filter((s) => s.startsWith('.') && resolve(f.path, s).startsWith('cli/'))
          .map((s) => `${f.path}: ${s}`),
      );
    expect(offenders).to.deep.equal([]);
  });
});

/** True when the file emits no JavaScript: it declares only types, so no test can run it. */
function typesOnly(path: string): boolean {
  const { outputText } = ts.transpileModule(readFileSync(join(SRC, path), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return outputText.replace(/\/\/.*|\/\*[\s\S]*?\*\/|export \{\};/g, '').trim() === '';
}

/** The entry of COVERED_ELSEWHERE that names a source file. */
function coveringEntry(path: string): string | undefined {
  return Object.hasOwn(COVERED_ELSEWHERE, path) ? path : undefined;
}

/** Unit tests that check the project as a whole rather than one source file. */
const WHOLE_PROJECT_TESTS = ['architecture.test.ts', 'dependencies.test.ts', 'docs.test.ts'];

describe('tests named after what they test (test/unit mirrors src/)', () => {
  const untested = files
    .map((f) => f.path)
    .filter((path) => !existsSync(join(UNIT, path.replace(/\.ts$/, '.test.ts'))))
    .filter((path) => !typesOnly(path));

  it('when a source file has no test/unit/<same path>.test.ts, then test/support/covered-elsewhere.ts names the suite that covers it', () => {
    expect(untested.filter((path) => coveringEntry(path) === undefined)).to.deep.equal([]);
  });

  it('when covered-elsewhere.ts names a covering suite, then that file exists', () => {
    const missing = Object.entries(COVERED_ELSEWHERE).flatMap(([entry, by]) =>
      by.filter((test) => !existsSync(join(ROOT, test))).map((test) => `${entry}: ${test}`),
    );
    expect(missing).to.deep.equal([]);
  });

  it('when covered-elsewhere.ts has an entry, then it still names a source file without its own unit test', () => {
    const used = new Set(untested.map(coveringEntry));
    expect(Object.keys(COVERED_ELSEWHERE).filter((entry) => !used.has(entry))).to.deep.equal([]);
  });

  it('when a unit test exists, then it is named after a source file (or checks the whole project)', () => {
    const tests = readdirSync(UNIT, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.test.ts'),
    );
    expect(tests).to.include('architecture.test.ts');
    const strays = tests.filter(
      (test) =>
        !WHOLE_PROJECT_TESTS.includes(test) &&
        !existsSync(join(SRC, test.replace(/\.test\.ts$/, '.ts'))),
    );
    expect(strays).to.deep.equal([]);
  });
});
