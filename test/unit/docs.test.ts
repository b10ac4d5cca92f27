import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import { expect } from 'chai';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const DOCS = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Built or local folders a doc may name although no checkout holds them (.gitignore). */
const BUILT = /^(?:dist|bench\/build|bench\/results|coverage|\.plant-store)\//;

/** Every file and folder of the project, as paths from its root, without node_modules and builds. */
function projectPaths(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (['node_modules', '.git', 'dist'].includes(entry.name) || BUILT.test(`${path}/`)) return [];
    return entry.isDirectory() ? [`${path}/`, ...projectPaths(path)] : [path];
  });
}

let allPaths: string[] | undefined;

/** The paths a doc names: its relative links, and code spans that look like a path of the project. */
function namedPaths(doc: string): { named: string; exists: boolean }[] {
  const text = read(doc).replace(/```[\s\S]*?```/g, '');
  const paths = (allPaths ??= projectPaths());
  const tops = new Set(paths.filter((path) => /^[^/]+\/$/.test(path)));
  const found: { named: string; exists: boolean }[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const path = target!.split('#')[0]!;
    if (path === '' || /^[a-z]+:/.test(path)) continue;
    found.push({ named: target!, exists: existsSync(join(ROOT, dirname(doc), path)) });
  }
  for (const [, span] of text.matchAll(/`([^`\s<>*]+)`/g)) {
    const named = span!;
    if (BUILT.test(named)) continue;
    const top = /^[^/]+\//.exec(named)?.[0];
    if (top !== undefined && tops.has(top)) {
      // A path from the project's root: src/..., test/..., docs/..., bench/..., scripts/...
      found.push({ named, exists: existsSync(join(ROOT, normalize(named))) });
    } else if (/^[\w-]+(?:\/[\w.-]+)+\.(?:ts|md)$/.test(named)) {
      // A path inside a folder the text names (`server/raw-answer.ts`): some file ends so.
      found.push({ named, exists: paths.some((path) => path.endsWith(`/${named}`)) });
    } else if (/^[\w.-]+\.(?:ts|md)$/.test(named)) {
      // A file name alone (`pipelined-answers.ts`): some file of the project has it.
      found.push({ named, exists: paths.some((path) => basename(path) === named) });
    }
  }
  return found;
}

/** Every environment variable src/ reads: `env.NAME`, `env['NAME']`, and the names src/config reads through a table. */
function variablesRead(): string[] {
  const names = new Set<string>();
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter(
    (path) => path.endsWith('.ts'),
  );
  for (const path of files) {
    const text = read(`src/${path}`);
    for (const [, name] of text.matchAll(/\benv(?:\.|\['|, ')([A-Z][A-Z0-9_]*)/g)) names.add(name!);
    if (path.startsWith('config/')) {
      for (const [, name] of text.matchAll(/'(PLANT_STORE_[A-Z0-9_]*[A-Z0-9])'/g)) names.add(name!);
    }
  }
  return [...names].sort();
}

/** The code block under a doc's `## Layout` heading: the tree it draws. */
function layout(doc: string): string {
  const text = read(doc);
  return /```\n([\s\S]*?)```/.exec(text.slice(text.indexOf('\n## Layout')))?.[1] ?? '';
}

describe('the documentation', () => {
  for (const doc of DOCS) {
    it(`when ${doc} names a path of the project, then it exists`, () => {
      const named = namedPaths(doc);
      expect(named.filter((path) => !path.exists).map((path) => path.named)).to.deep.equal([]);
    });
  }

  it('when a doc is read for paths, then links, root paths and file names are all found', () => {
    const named = namedPaths('docs/architecture.md').map((path) => path.named);
    expect(named).to.include.members(['test/unit/architecture.test.ts', 'src/', 'json-body.ts']);
    expect(namedPaths('docs/operations.md').map((path) => path.named)).to.include('storage.md');
  });

  for (const doc of ['docs/architecture.md']) {
    it(`when src/ has a folder, then the layout of ${doc} names it`, () => {
      const tree = layout(doc);
      expect(tree).to.include('src/');
      const folders = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${join(entry.parentPath, entry.name).slice(join(ROOT, 'src/').length)}/`);
      expect(folders).to.include('adapters/transfer/');
      const name = (folder: string) => folder.split('/').at(-2)!;
      const missing = folders.filter(
        (folder) =>
          !tree.includes(`src/${folder}`) && !new RegExp(`(?:^|[\\s(])${name(folder)}/`).test(tree),
      );
      expect(missing).to.deep.equal([]);
    });
  }

  it('when src/ reads an environment variable, then docs/operations.md names it', () => {
    const variables = variablesRead();
    expect(variables).to.include.members(['PORT', 'REDIS_URL', 'PLANT_STORE_LISTEN_BACKLOG']);
    const operations = read('docs/operations.md');
    expect(variables.filter((name) => !new RegExp(`\\b${name}\\b`).test(operations))).to.deep.equal(
      [],
    );
  });
});
