import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'chai';
import {
  buildService,
  exportPlants,
  importPlants,
  loadConfig,
  MAX_LINE_BYTES,
  parseExactJson,
  readLines,
  type PlantStore,
  type Service,
} from '../../../src/index.js';

describe('backing up and restoring a memory store from the embedding process (docs/embedding.md)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-backup-'));
  const caller = { tenant: 'greenhouse', scopes: ['plants:read', 'plants:write'] } as const;
  const services: Service[] = [];
  const open = async (): Promise<Service> => {
    const config = loadConfig({ LOG_LEVEL: 'silent', PLANT_STORE_STORAGE: 'memory' });
    const service = await buildService(config);
    services.push(service);
    return service;
  };
  after(async () => {
    await Promise.all(services.map((service) => service.close()));
    rmSync(directory, { recursive: true, force: true });
  });

  it('when one service backs up as documented and another restores, then it lists the same plants', async () => {
    const source = await open();
    await source.plants.createPlant(caller, { id: 9007199254740993n, name: 'Monstera' });
    await source.plants.createPlant(caller, { id: -1n, name: 'Fern 🌿', tag: '' });
    const file = join(directory, 'plants.ndjson');

    async function* withNewlines(store: PlantStore) {
      for await (const line of exportPlants(store)) yield `${line}\n`;
    }
    await pipeline(Readable.from(withNewlines(source.plantStore)), createWriteStream(file));
    const target = await open();
    const summary = await importPlants(
      target.plantStore,
      readLines(createReadStream(file), MAX_LINE_BYTES),
      { parseJson: parseExactJson, onConflict: 'fail' },
    );

    expect(summary).to.deep.equal({
      lines: 2,
      imported: 2,
      present: 0,
      replaced: 0,
      conflicts: 0,
      refused: 0,
      errors: 0,
      complete: true,
    });
    expect((await target.plants.listPlants(caller, {})).plants).to.deep.equal(
      (await source.plants.listPlants(caller, {})).plants,
    );
  });
});
