import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import semver from 'semver';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

interface Manifest {
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
interface Lock {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for a relative or node: one. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Every package `text` imports, statically or with import(), resolves, or reads a file of (docs assets). */
function importedBy(text: string, found = new Set<string>()): Set<string> {
  for (const match of text.matchAll(
    /\bfrom\s+'([^']+)'|\b(?:import|packageFile|resolve)\(\s*'([^']+)'\s*\)/g,
  )) {
    const name = packageOf((match[1] ?? match[2])!);
    if (name !== undefined) found.add(name);
  }
  return found;
}

/** Every package a file under src/ uses, or the install script (package.json's postinstall). */
function importedBySource(dir = SRC): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    importedBy(readFileSync(join(entry.parentPath, entry.name), 'utf8'), found);
  }
  const script = /^node (\S+)$/.exec(manifest.scripts.postinstall ?? '')?.[1];
  if (script !== undefined) importedBy(readFileSync(join(ROOT, script), 'utf8'), found);
  return found;
}

describe('the dependencies', () => {
  it('when npm installs on the oldest Node the package supports, then every locked package accepts it (no EBADENGINE)', () => {
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, { version, engines }]) => {
        const node = Array.isArray(engines) ? undefined : engines?.node;
        return node === undefined || semver.satisfies(oldest, node)
          ? []
          : [`${path.replace(/^.*node_modules\//, '')}@${version} wants node ${node}`];
      });
    expect(refusing, `Node ${oldest}`).to.deep.equal([]);
  });

  it('when the package is installed for its run time, then each of its dependencies is one src/ or its install script uses (or its types)', () => {
    const imported = importedBySource();
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !imported.has(name) && !imported.has(name.replace(/^@types\//, '')),
    );
    expect(unused).to.deep.equal([]);
  });

  it('when the root package is installed for development, then it brings no bench-only framework (the bench workspace has them)', () => {
    const bench = JSON.parse(readFileSync(join(ROOT, 'bench', 'package.json'), 'utf8')) as Manifest;
    const frameworks = /^(?:@nestjs\/|nestjs-|fastify$|@fastify\/|autocannon$|@types\/autocannon$)/;
    expect(
      Object.keys(manifest.devDependencies).filter((name) => frameworks.test(name)),
    ).to.deep.equal([]);
    expect(
      Object.keys(bench.devDependencies).filter((name) => frameworks.test(name)),
    ).to.include.members(['@nestjs/core', 'fastify', 'autocannon']);
  });
});
