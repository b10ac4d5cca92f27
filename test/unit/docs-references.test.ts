import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { runCli, type CliApplication } from '../../src/cli/run-cli.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const files = (dir: string, ext: RegExp) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => ext.test(path) && !path.includes('node_modules'))
    .map((path) => `${dir}/${path}`);
const DOCS = ['README.md', 'bench/README.md', ...files('docs', /\.md$/)];

/** Every help text the CLI prints, got by asking it as a user would (no dist/ needed). */
async function helpTexts(): Promise<string> {
  const out: string[] = [];
  const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
  const refuse = () => Promise.reject(new Error('help opens no storage'));
  const app: CliApplication = {
    serve: refuse,
    openTokenAdministration: refuse,
    openWebhookAdministration: refuse,
    openPlantStore: refuse,
  };
  const commands = [[], ['serve'], ['tokens'], ['webhooks'], ['export'], ['import'], ['backup']];
  for (const sub of ['create', 'list', 'revoke']) commands.push(['tokens', sub]);
  for (const sub of ['add', 'list', 'remove', 'rotate-secret', 'enable', 'disable']) {
    commands.push(['webhooks', sub]);
  }
  for (const command of commands) {
    expect(await runCli([...command, '--help'], {}, io, app)).to.equal(0);
  }
  return out.join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const prose = (text: string) => text.replace(/```[\s\S]*?```/g, '');
const anchors = (path: string) =>
  [...prose(read(path)).matchAll(/^#+ (.+)$/gm)].map(([, heading]) => slug(heading!));

/** The markdown file a reference names, from the referring doc's folder or the root. */
function target(from: string, path: string): string | undefined {
  return [join(dirname(from), path), path, join('docs', path)].find((candidate) =>
    existsSync(join(ROOT, candidate)),
  );
}

/** What a text names that must exist: root paths, PLANT_STORE_/BENCH_ variables, sections. */
function missing(from: string, text: string, code: string): string[] {
  const wrong: string[] = [];
  for (const [path] of text.matchAll(
    /(?<![\w./-])(?:docs|src|test|bench|scripts)\/[\w./-]*\w(?![\w.-]*<)/g,
  )) {
    if (!existsSync(join(ROOT, path)) && !/^bench\/(?:build|results)\b/.test(path))
      wrong.push(path);
  }
  for (const [name] of text.matchAll(/\b(?:PLANT_STORE|BENCH)_[A-Z0-9_]*[A-Z0-9](?![_*A-Z])/g)) {
    if (!new RegExp(`(?:env\\.|['"$]|\\$\\{|const )${name}\\b`).test(code)) wrong.push(name);
  }
  const links = [...prose(text).matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)].map(([, p, a]) => [p, a]);
  for (const [, p, title] of text.matchAll(/([\w./-]+\.md)[)\]]*,\s+"([^"]+)"/g)) {
    links.push([p, slug(title!.replace(/\s+/g, ' '))]);
  }
  for (const [path, anchor] of links) {
    const file = path === '' ? from : target(from, path!);
    if (file === undefined || !anchors(file).includes(anchor!)) wrong.push(`${path}#${anchor}`);
  }
  return wrong;
}

describe('what the docs and the CLI help name', () => {
  // Where a variable is read (env.NAME, 'NAME', $NAME; or a constant so named): the service, the
  // bench, the test servers, the scripts.
  const code = [
    ...files('src', /\.ts$/),
    ...files('bench', /\.ts$/),
    ...files('test/support', /\.ts$/),
    ...files('scripts', /\.(?:ts|mjs|sh)$/),
    'package.json',
  ]
    .map(read)
    .join('\n');

  for (const doc of DOCS) {
    it(`when ${doc} names a path, variable or section, then it exists`, () => {
      expect(missing(doc, read(doc), code)).to.deep.equal([]);
    });
  }

  it('when the CLI help names a path, variable or section, then it exists', async () => {
    const help = await helpTexts();
    expect(help).to.include('docs/operations.md').and.include('PLANT_STORE_STORAGE');
    expect(missing('README.md', help, code)).to.deep.equal([]);
  });

  it('when a reference is broken, then it is reported', () => {
    const text =
      'See [x](docs/storage.md#no-such-section), docs/nowhere.md, `PLANT_STORE_NOTHING`, ' +
      '(docs/operations.md, "No such section"), [ok](docs/storage.md#the-memory-store).';
    expect(missing('README.md', text, code)).to.deep.equal([
      'docs/nowhere.md',
      'PLANT_STORE_NOTHING',
      'docs/storage.md#no-such-section',
      'docs/operations.md#no-such-section',
    ]);
  });
});
