import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../../src/adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import {
  ERROR_ROWS,
  problem,
  type ErrorName,
  type HttpProblem,
} from '../../../src/adapters/http/error-catalogue.js';
import { MemoryPlantStore } from '../../../src/adapters/storage/memory/memory-plant-store.js';
import { PlantService } from '../../../src/application/plant-service.js';
import { send } from '../../support/http-client.js';

const ROOT = new URL('../../../', import.meta.url);
const HTTP_SOURCES = new URL('src/adapters/http/', ROOT);

const headerCell = (row: (typeof ERROR_ROWS)[number]): string =>
  row.header ? `\`${row.header.name}: ${row.header.rule}\`` : '';

/** The rows of the first table under "## Every code" in docs/errors.md, trimmed cells joined by " | ". */
function documentedRows(): string[] {
  const text = readFileSync(new URL('docs/errors.md', ROOT), 'utf8');
  const section = text.slice(text.indexOf('## Every code'));
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines
    .slice(2) // the heading and the --- line
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim())
        .join(' | '),
    );
}

async function servedDocument(): Promise<{
  paths: Record<string, Record<string, { operationId: string; responses: object }>>;
  'x-error-catalogue': object[];
}> {
  const store = new MemoryPlantStore();
  const app = createHttpApp({
    plants: new PlantService(store),
    tokenVerifier: new StaticTokenVerifier([]),
    readiness: [{ name: 'plants', ping: () => store.ping() }],
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  try {
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    return JSON.parse((await send(port, 'GET', '/openapi.json')).text);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('error catalogue', () => {
  it('when the catalogue is read, then each code is unique and starts with its status', () => {
    const codes = ERROR_ROWS.map((row) => row.code);

    expect(new Set(codes).size).to.equal(codes.length);
    for (const row of ERROR_ROWS) expect(String(row.code).slice(0, 3)).to.equal(String(row.status));
  });

  it('when docs/errors.md is read, then its table lists exactly the catalogue: status, code, when, headers', () => {
    const expected = ERROR_ROWS.map((row) =>
      [row.status, row.code, row.when, headerCell(row)].join(' | '),
    );

    // One line a row, so that a mismatch shows as a line diff.
    expect(documentedRows().join('\n')).to.equal(expected.join('\n'));
  });

  it('when /openapi.json is served, then it carries every code, and each under its status on each operation that answers it', async () => {
    const document = await servedDocument();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));

    expect(document['x-error-catalogue']).to.deep.equal(
      ERROR_ROWS.map((row) => ({
        status: row.status,
        error: row.code,
        when: row.when,
        ...(row.header && { headers: `${row.header.name}: ${row.header.rule}` }),
      })),
    );
    for (const row of ERROR_ROWS) {
      for (const operation of operations) {
        const response = (operation.responses as Record<string, { description: string }>)[
          String(row.status)
        ];
        const described = response?.description.includes(`${row.code}: ${row.when}`) ?? false;
        expect(described, `${row.code} on ${operation.operationId}`).to.equal(
          row.on.includes(operation.operationId as never),
        );
      }
    }
  });

  it('when the docs name a code, then the catalogue holds it, and a status written before it is its own', () => {
    // The docs name codes where they explain a rule (docs/http-contract.md most); errors.md is the
    // one table. CHANGELOG.md is left out: history may name what once was.
    const files = [
      ...readdirSync(new URL('docs/', ROOT))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
      'README.md',
    ];
    const codes = new Set(ERROR_ROWS.map((row) => String(row.code)));

    const wrong = files.flatMap((file) =>
      [...readFileSync(new URL(file, ROOT), 'utf8').matchAll(/\b(?:(\d{3}) )?([45]\d{4})\b/g)]
        .filter(([, status, code]) => !codes.has(code!) || (status && !code!.startsWith(status)))
        .map(([named]) => `${file}: ${named}`),
    );

    expect(files).to.include('docs/http-contract.md');
    expect(wrong).to.deep.equal([]);
  });

  it('when a refusal adds a header, then its value matches the rule the docs state', () => {
    const samples: Partial<Record<ErrorName, unknown>> = {
      'insufficient-scope': { message: 'needs plants:write', scope: 'plants:write' },
      'method-not-allowed': { method: 'PUT', path: '/plants', allow: 'GET, POST' },
      'rate-limited': { perSecond: 3, wait: 2 },
    };
    const raise = problem as (name: ErrorName, detail?: unknown) => HttpProblem;
    for (const row of ERROR_ROWS.filter((r) => r.header !== undefined)) {
      const { name, rule } = row.header!;
      const pattern = rule
        .split(/<[^>]+>/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.+');

      const answer = raise(row.name, samples[row.name] ?? 'a message');

      expect(answer.headers, row.name).to.have.all.keys(name);
      expect(answer.headers[name], row.name).to.match(new RegExp(`^${pattern}$`));
    }
  });

  it('when the HTTP adapter is read, then only the catalogue holds error codes or makes an HttpProblem', () => {
    const offenders = readdirSync(HTTP_SOURCES, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'error-catalogue.ts')
      .flatMap((file) => {
        const code = readFileSync(new URL(file, HTTP_SOURCES), 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(?:\/\/|\/?\*)/.test(line)); // comments may name a code
        return code
          .filter((line) => /new HttpProblem\(|\b[45]\d{4}\b/.test(line))
          .map((line) => `${file}: ${line.trim()}`);
      });

    expect(offenders).to.deep.equal([]);
  });
});
