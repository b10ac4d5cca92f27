import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PlantError } from '../../../domain/errors.js';
import {
  applyPatch,
  wants,
  type SubscriptionPatch,
  type WebhookEventType,
  type WebhookSubscription,
} from '../../../domain/webhook.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import { byCreation, fromRecord, toRecord } from '../webhook-record.js';
import { readBounded } from './bounded-read.js';
import { withLock, writeAtomically } from './locked-file.js';

type Subscriptions = Map<string, WebhookSubscription>;

/**
 * Webhook subscriptions in a JSON file beside the token file, shared by `plant-store webhooks`
 * and the server on the memory storage. Every change is a read-modify-write under a lock file and
 * an atomic rename; the file is readable by its owner only (it holds signing secrets).
 */
export class FileWebhookSubscriptions implements WebhookSubscriptions {
  private cache: { key: string; checkedAt: number; subscriptions: Subscriptions } | undefined;

  /** `cacheMs`: how long `targets` trusts its copy before looking at the file again. */
  constructor(
    readonly path: string,
    private readonly cacheMs = 1000,
  ) {}

  private unavailable(error: unknown): PlantError {
    const reason = error instanceof Error ? error.message : String(error);
    const unavailable = new PlantError('storage-unavailable', 'storage is unavailable');
    unavailable.cause = new Error(`the webhook file ${this.path} cannot be used: ${reason}`);
    return unavailable;
  }

  private loading: Promise<Subscriptions> | undefined;

  /** The subscriptions as the file has them now; concurrent callers share one look at it. */
  private load(): Promise<Subscriptions> {
    this.loading ??= this.loadNow().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async loadNow(): Promise<Subscriptions> {
    try {
      const found = await stat(this.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      const key = found ? `${found.ino}:${found.mtimeMs}:${found.size}` : '';
      if (this.cache?.key === key) {
        this.cache.checkedAt = Date.now();
        return this.cache.subscriptions;
      }
      const subscriptions: Subscriptions = new Map();
      if (found) {
        const parsed = JSON.parse(await readBounded(this.path)) as { webhooks?: unknown };
        if (!Array.isArray(parsed.webhooks)) throw new Error('it is not a webhook file');
        for (const record of parsed.webhooks) {
          const subscription = fromRecord(record as Record<string, unknown>);
          subscriptions.set(subscription.id, subscription);
        }
      }
      this.cache = { key, checkedAt: Date.now(), subscriptions };
      return subscriptions;
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private async change<T>(
    edit: (subscriptions: Subscriptions) => T | undefined,
  ): Promise<T | undefined> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      return await withLock(this.path, async () => {
        this.cache = undefined;
        // Its own look under the lock: a shared one may have begun before another writer's change.
        const subscriptions = new Map(await this.loadNow());
        const result = edit(subscriptions);
        if (result === undefined) return undefined;
        const webhooks = [...subscriptions.values()].sort(byCreation).map(toRecord);
        await writeAtomically(this.path, `${JSON.stringify({ version: 1, webhooks }, null, 2)}\n`);
        this.cache = undefined;
        return result;
      });
    } catch (error) {
      throw error instanceof PlantError ? error : this.unavailable(error);
    }
  }

  async add(subscription: WebhookSubscription): Promise<boolean> {
    const added = await this.change((subscriptions) => {
      if (subscriptions.has(subscription.id)) return undefined;
      subscriptions.set(subscription.id, subscription);
      return true;
    });
    return added === true;
  }

  async find(id: string): Promise<WebhookSubscription | undefined> {
    return (await this.load()).get(id);
  }

  async list(tenant?: string): Promise<WebhookSubscription[]> {
    return [...(await this.load()).values()]
      .filter((subscription) => tenant === undefined || subscription.tenant === tenant)
      .sort(byCreation);
  }

  async update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    return this.change((subscriptions) => {
      const found = subscriptions.get(id);
      if (found === undefined) return undefined;
      const changed = applyPatch(found, patch);
      subscriptions.set(id, changed);
      return changed;
    });
  }

  async remove(id: string): Promise<boolean> {
    return (await this.change((subscriptions) => subscriptions.delete(id) || undefined)) === true;
  }

  /** The ids of the tenant's enabled subscriptions to the event, from a copy at most `cacheMs` old. */
  async targets(tenant: string, type: WebhookEventType): Promise<string[]> {
    const fresh = this.cache !== undefined && Date.now() - this.cache.checkedAt < this.cacheMs;
    const subscriptions = fresh ? this.cache!.subscriptions : await this.load();
    const ids: string[] = [];
    for (const subscription of subscriptions.values()) {
      if (subscription.tenant === tenant && wants(subscription, type)) ids.push(subscription.id);
    }
    return ids;
  }

  async close(): Promise<void> {
    this.cache = undefined;
  }
}
