import { expect } from 'chai';
import type { AnyBulkWriteOperation, Document } from 'mongodb';
import {
  bulkWriteChunks,
  FERRETDB_UPDATES,
} from '../../../../../src/adapters/storage/mongodb/mongo-plant-store.js';

const update = (n: number): AnyBulkWriteOperation<Document> => ({
  updateOne: { filter: { n }, update: { $set: { n } } },
});
const insert = (n: number): AnyBulkWriteOperation<Document> => ({ insertOne: { document: { n } } });

describe('bulkWrite chunks (MongoDB and FerretDB)', () => {
  it('when the server is MongoDB, then every write goes in one bulkWrite, and none when there is none', () => {
    const operations = Array.from({ length: 150 }, (_, n) => update(n));
    expect(bulkWriteChunks(operations, false)).to.deep.equal([{ start: 0, chunk: operations }]);
    expect(bulkWriteChunks([], false)).to.deep.equal([]);
  });

  it('when the server is FerretDB, then no bulkWrite carries more than FERRETDB_UPDATES updates, inserts riding along, all in order', () => {
    const operations = Array.from({ length: 150 }, (_, n) => (n % 3 === 0 ? insert(n) : update(n)));

    const chunks = bulkWriteChunks(operations, true);

    for (const { chunk } of chunks) {
      expect(chunk.filter((write) => 'updateOne' in write).length).to.be.at.most(FERRETDB_UPDATES);
    }
    expect(chunks.flatMap(({ chunk }) => chunk)).to.deep.equal(operations);
    for (const { start, chunk } of chunks) expect(operations[start]).to.equal(chunk[0]);
    expect(chunks).to.have.length(Math.ceil(100 / FERRETDB_UPDATES));
  });
});
