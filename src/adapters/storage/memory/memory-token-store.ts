import { toSummary, type ManagedToken, type TokenSummary } from '../../../domain/managed-token.js';
import type { TokenStore } from '../../../ports/token-store.js';

/** The memory storage's managed tokens, which `plant-store tokens` (another process) cannot reach. */
export class MemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, ManagedToken>();

  async create(token: ManagedToken): Promise<boolean> {
    if (this.tokens.has(token.id)) return false;
    this.tokens.set(token.id, { ...token, scopes: [...token.scopes] });
    return true;
  }

  async find(id: string): Promise<ManagedToken | undefined> {
    const token = this.tokens.get(id);
    return token && { ...token, scopes: [...token.scopes] };
  }

  async list(tenant?: string): Promise<TokenSummary[]> {
    return [...this.tokens.values()]
      .filter((token) => tenant === undefined || token.tenant === tenant)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((token) => toSummary({ ...token, scopes: [...token.scopes] }));
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const token = this.tokens.get(id);
    if (token === undefined) return false;
    if (token.revokedAt === undefined) this.tokens.set(id, { ...token, revokedAt: at });
    return true;
  }

  async ping(): Promise<void> {}

  async markUsed(id: string, at: Date): Promise<void> {
    const token = this.tokens.get(id);
    if (token && (token.lastUsedAt === undefined || token.lastUsedAt < at)) {
      this.tokens.set(id, { ...token, lastUsedAt: at });
    }
  }
}
