import type { Collection } from 'mongodb';
import { toSummary, type ManagedToken, type TokenSummary } from '../../../domain/managed-token.js';
import type { TokenStore } from '../../../ports/token-store.js';
import { insertNew, text as checked, withinDeadline } from './mongo-client.js';

/** A managed token as stored: the token's id is the document's `_id`. */
export interface TokenDocument extends Omit<ManagedToken, 'id' | 'scopes'> {
  _id: string;
  scopes: ManagedToken['scopes'][number][];
}

export const TOKEN_COLLECTION = 'tokens';

const text = (value: string): string => checked(value, 'token ids and tenants');

const toToken = ({ _id, ...rest }: TokenDocument): ManagedToken => ({
  id: _id,
  name: rest.name,
  tenant: rest.tenant,
  scopes: [...rest.scopes],
  digest: rest.digest,
  createdAt: rest.createdAt,
  ...(rest.expiresAt && { expiresAt: rest.expiresAt }),
  ...(rest.revokedAt && { revokedAt: rest.revokedAt }),
  ...(rest.lastUsedAt && { lastUsedAt: rest.lastUsedAt }),
});

export class MongoTokenStore implements TokenStore {
  constructor(private readonly tokens: Collection<TokenDocument>) {}

  async create(token: ManagedToken): Promise<boolean> {
    const { id: _id, ...rest } = token;
    return insertNew(this.tokens, { _id: text(_id), ...rest, scopes: [...rest.scopes] });
  }

  async find(tokenId: string): Promise<ManagedToken | undefined> {
    const document = await withinDeadline(() => this.tokens.findOne({ _id: text(tokenId) }));
    return document === null ? undefined : toToken(document);
  }

  async list(tenant?: string): Promise<TokenSummary[]> {
    const filter = tenant === undefined ? {} : { tenant: text(tenant) };
    const documents = await withinDeadline(() =>
      this.tokens
        .find(filter, { projection: { digest: 0 }, sort: { createdAt: 1, _id: 1 } })
        .toArray(),
    );
    // The projection keeps digests on the server; toSummary drops the placeholder.
    return documents.map((document) => toSummary(toToken({ ...document, digest: '' })));
  }

  async revoke(tokenId: string, at: Date): Promise<boolean> {
    return withinDeadline(async () => {
      const { matchedCount } = await this.tokens.updateOne(
        { _id: text(tokenId), revokedAt: { $exists: false } },
        { $set: { revokedAt: at } },
      );
      return matchedCount === 1 || (await this.tokens.countDocuments({ _id: tokenId })) === 1;
    });
  }

  /** One indexed lookup of an id no token has. */
  async ping(): Promise<void> {
    await withinDeadline(() => this.tokens.findOne({ _id: '' }, { projection: { _id: 1 } }));
  }

  async markUsed(tokenId: string, at: Date): Promise<void> {
    await withinDeadline(() =>
      this.tokens.updateOne(
        {
          _id: text(tokenId),
          $or: [{ lastUsedAt: { $exists: false } }, { lastUsedAt: { $lt: at } }],
        },
        { $set: { lastUsedAt: at } },
      ),
    );
  }
}
