import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FileTokenStore } from '../../../../../src/adapters/storage/file/file-token-store.js';
import { isPlantError } from '../../../../../src/domain/errors.js';
import { rejection } from '../../../../support/rejection.js';

const directory = mkdtempSync(join(tmpdir(), 'plant-store-tokens-'));
after(() => rmSync(directory, { recursive: true, force: true }));

describe('FileTokenStore', () => {
  const token = {
    id: '0123456789abcdef',
    name: 'n',
    tenant: 't',
    scopes: ['plants:read'] as const,
    digest: 'digest-of-the-token',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
  };

  it('when it writes, then the directory and file are readable by their owner only', async () => {
    const path = join(directory, 'modes', 'tokens.json');
    await new FileTokenStore(path).create(token);

    expect(statSync(join(directory, 'modes')).mode & 0o777).to.equal(0o700);
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(readFileSync(path, 'utf8')).to.include('digest-of-the-token');
  });

  it('when another process revokes, then a store that read the file before sees it', async () => {
    const path = join(directory, 'shared', 'tokens.json');
    const server = new FileTokenStore(path);
    const command = new FileTokenStore(path);
    await command.create(token);
    expect((await server.find(token.id))?.revokedAt).to.equal(undefined);

    await command.revoke(token.id, new Date('2026-02-01T00:00:00.000Z'));

    expect((await server.find(token.id))?.revokedAt).to.deep.equal(
      new Date('2026-02-01T00:00:00.000Z'),
    );
  });

  it('when a use is marked, then the token file itself is not rewritten', async () => {
    const path = join(directory, 'used', 'tokens.json');
    const store = new FileTokenStore(path);
    await store.create(token);
    const before = readFileSync(path, 'utf8');

    await store.markUsed(token.id, new Date('2026-03-01T00:00:00.000Z'));

    expect(readFileSync(path, 'utf8')).to.equal(before);
    expect((await store.find(token.id))?.lastUsedAt).to.deep.equal(
      new Date('2026-03-01T00:00:00.000Z'),
    );
  });

  it('when the file is not a token file, then lookups reject as storage-unavailable, naming it only in the cause', async () => {
    const path = join(directory, 'corrupt.json');
    writeFileSync(path, '{"tokens": "nope"}');

    const error = await rejection(new FileTokenStore(path).find(token.id), Error);

    expect(isPlantError(error) && error.code).to.equal('storage-unavailable');
    expect(error.message).to.equal('storage is unavailable');
    expect((error.cause as Error).message).to.include(path);
  });

  it('when the last-use file is damaged, then lookups still work, without last use', async () => {
    const path = join(directory, 'damaged-used', 'tokens.json');
    const store = new FileTokenStore(path);
    await store.create(token);
    writeFileSync(`${path}.last-used`, `{"${token.id}": "yesterday"}`);

    expect(await store.find(token.id)).to.deep.equal(token);
  });

  it('when the file does not exist, then the store is empty', async () => {
    const store = new FileTokenStore(join(directory, 'absent', 'tokens.json'));

    expect(await store.list()).to.deep.equal([]);
    expect(await store.find(token.id)).to.equal(undefined);
  });
});
