import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { mintToken, tokenDigest } from '../../../../src/application/token-format.js';
import type { ManagedToken } from '../../../../src/domain/managed-token.js';
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { MemoryTokenStore } from '../../../../src/adapters/storage/memory/memory-token-store.js';
import { MemoryWebhookSubscriptions } from '../../../../src/adapters/storage/memory/memory-webhook-subscriptions.js';
import { StorageOpenError } from '../../../../src/adapters/storage/storage-open-error.js';
import { toRecord } from '../../../../src/adapters/storage/webhook-record.js';
import {
  takeInLegacyFiles,
  type LegacyFiles,
} from '../../../../src/adapters/storage/take-in-legacy-files.js';
import type { TokenStore } from '../../../../src/ports/token-store.js';
import type { WebhookSubscriptions } from '../../../../src/ports/webhook-subscriptions.js';
import { newSubscription } from '../../../support/webhook-subscription.js';

type Stores = { tokens: TokenStore; webhooks: WebhookSubscriptions; close(): Promise<void> };

/** The stores it runs against, each opened empty in a directory of its own. */
const LEGACY_TARGETS: [string, (directory: string) => Promise<Stores>][] = [
  [
    'memory',
    async () => ({
      tokens: new MemoryTokenStore(),
      webhooks: new MemoryWebhookSubscriptions(),
      close: async () => {},
    }),
  ],
  [
    'lmdb',
    async (directory) => {
      const storage = await openLmdbStorage({ dataDir: directory });
      return { tokens: storage.tokens, webhooks: storage.webhooks!, close: () => storage.close() };
    },
  ],
];

/** A token as the file token store of earlier versions wrote it (createdAt and all as ISO text). */
function legacyToken(overrides: Partial<ManagedToken> = {}): {
  token: string;
  record: ManagedToken;
} {
  const { id, token } = mintToken();
  const record: ManagedToken = {
    id,
    name: 'ci',
    tenant: 'acme',
    scopes: ['plants:read', 'plants:write'],
    digest: tokenDigest(token),
    createdAt: new Date('2025-06-01T10:00:00.000Z'),
    expiresAt: new Date('2030-01-01T00:00:00.000Z'),
    ...overrides,
  };
  return { token, record };
}

const tokenFile = (records: ManagedToken[]): string =>
  `${JSON.stringify(
    {
      version: 1,
      tokens: records.map((r) => ({
        ...r,
        createdAt: r.createdAt.toISOString(),
        expiresAt: r.expiresAt?.toISOString(),
        revokedAt: r.revokedAt?.toISOString(),
        lastUsedAt: undefined,
      })),
    },
    null,
    2,
  )}\n`;

for (const [name, open] of LEGACY_TARGETS) {
  describe(`takeInLegacyFiles into the ${name} stores`, () => {
    let directory: string;
    let files: LegacyFiles;
    let stores: Stores;
    let told: string[];
    const tell = (line: string) => told.push(line);

    beforeEach(async () => {
      directory = mkdtempSync(join(tmpdir(), 'plant-store-legacy-'));
      files = {
        tokens: join(directory, 'tokens.json'),
        webhooks: join(directory, 'webhooks.json'),
      };
      stores = await open(join(directory, 'data'));
      told = [];
    });
    afterEach(async () => {
      await stores.close();
      rmSync(directory, { recursive: true, force: true });
    });

    it('when both files of an earlier version are there, then their entries are taken in whole, each file renamed, and one line tells of each', async () => {
      const active = legacyToken();
      const revoked = legacyToken({ revokedAt: new Date('2025-07-01T00:00:00.000Z') });
      writeFileSync(files.tokens, tokenFile([active.record, revoked.record]));
      writeFileSync(
        `${files.tokens}.last-used`,
        JSON.stringify({ [active.record.id]: '2025-08-01T00:00:00.000Z' }),
      );
      const subscription = newSubscription('acme', { enabled: false });
      writeFileSync(
        files.webhooks,
        JSON.stringify({ version: 1, webhooks: [toRecord(subscription)] }, null, 2),
      );

      await takeInLegacyFiles(stores, files, tell);

      expect(await stores.tokens.find(active.record.id)).to.deep.equal({
        ...active.record,
        lastUsedAt: new Date('2025-08-01T00:00:00.000Z'),
      });
      expect(await stores.tokens.find(revoked.record.id)).to.deep.equal(revoked.record);
      expect(await stores.webhooks.find(subscription.id)).to.deep.equal(subscription);
      expect([existsSync(files.tokens), existsSync(files.webhooks)]).to.deep.equal([false, false]);
      expect(readFileSync(`${files.tokens}.imported`, 'utf8')).to.include(active.record.id);
      expect(existsSync(`${files.webhooks}.imported`)).to.equal(true);
      expect(told).to.deep.equal([
        `took 2 managed tokens from ${files.tokens} into the storage; the file is renamed ${files.tokens}.imported and no longer read`,
        `took 1 webhook subscriptions from ${files.webhooks} into the storage; the file is renamed ${files.webhooks}.imported and no longer read`,
      ]);
    });

    it('when it runs again, then nothing is taken in twice and nothing is told', async () => {
      const { record } = legacyToken();
      writeFileSync(files.tokens, tokenFile([record]));
      await takeInLegacyFiles(stores, files, tell);
      told = [];

      await takeInLegacyFiles(stores, files, tell);

      expect(told).to.deep.equal([]);
      expect((await stores.tokens.list()).map((t) => t.id)).to.deep.equal([record.id]);
    });

    it('when a token of the file is in the store already (a start stopped before the rename), then the stored one is kept and the line says so', async () => {
      const { record } = legacyToken();
      await stores.tokens.create({ ...record, name: 'kept' });
      writeFileSync(files.tokens, tokenFile([record]));

      await takeInLegacyFiles(stores, files, tell);

      expect((await stores.tokens.find(record.id))?.name).to.equal('kept');
      expect(told[0]).to.match(/^took 0 managed tokens from .* \(1 were there already\);/);
    });

    it('when a file cannot be read as one, then the start fails with its path and the file is left as it was', async () => {
      writeFileSync(files.webhooks, 'not json');

      const error = await takeInLegacyFiles(stores, files, tell).then(
        () => expect.fail('it took in a broken file'),
        (thrown: unknown) => thrown,
      );

      expect(error).to.be.instanceOf(StorageOpenError);
      expect((error as Error).message).to.match(
        new RegExp(
          `^the file ${files.webhooks} of an earlier version \\(PLANT_STORE_WEBHOOK_FILE\\) cannot be taken in \\(.*\\); repair it or move it away$`,
        ),
      );
      expect(readFileSync(files.webhooks, 'utf8')).to.equal('not json');
      expect(told).to.deep.equal([]);
    });

    it("when an entry has an id or a tenant no door lets in (past the key size of a store, a lone surrogate), then the start fails with the file's path, nothing of it is stored, and it is left as it was", async () => {
      const cases: [keyof LegacyFiles, string, RegExp][] = [
        [
          'tokens',
          tokenFile([legacyToken({ id: 'x'.repeat(3000) }).record]),
          /an entry's id is not 16 hex digits/,
        ],
        [
          'tokens',
          tokenFile([legacyToken({ tenant: '\u{1F600}'.repeat(300) }).record]),
          /tenant .*256/,
        ],
        ['tokens', tokenFile([legacyToken({ tenant: 'a\ud800' }).record]), /tenant/],
        [
          'webhooks',
          JSON.stringify({
            webhooks: [toRecord({ ...newSubscription('acme'), id: `wh_${'y'.repeat(1900)}` })],
          }),
          /subscription's id is not wh_ and 16 hex digits/,
        ],
        [
          'webhooks',
          JSON.stringify({ webhooks: [toRecord(newSubscription('a\ud800'))] }),
          /tenant/,
        ],
      ];
      for (const [which, text, reason] of cases) {
        writeFileSync(files[which], text);

        const error = await takeInLegacyFiles(stores, files, tell).then(
          () => expect.fail(`it took in ${text.slice(0, 80)}`),
          (thrown: unknown) => thrown,
        );

        expect(error).to.be.instanceOf(StorageOpenError);
        expect((error as Error).message)
          .to.include(files[which])
          .and.match(reason)
          .and.not.include('x'.repeat(100));
        expect(readFileSync(files[which], 'utf8')).to.equal(text);
        rmSync(files[which]);
      }
      expect(await stores.tokens.list()).to.deep.equal([]);
      expect(await stores.webhooks.list()).to.deep.equal([]);
      expect(told).to.deep.equal([]);
    });

    it('when there is no file, then nothing is told or stored', async () => {
      await takeInLegacyFiles(stores, files, tell);

      expect(told).to.deep.equal([]);
      expect(await stores.tokens.list()).to.deep.equal([]);
    });
  });
}
